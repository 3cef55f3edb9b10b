package workspace_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// Personal data used by these tests, in the forms a rep may type them.
const (
	testSSN     = "234-56-6789"
	testTIN     = "98-7654321"
	testAccount = "000123456789"
)

// fillPersonalData saves a TIN, an SSN and an account number on a new application.
func fillPersonalData(t *testing.T, w *workspace) (uuid.UUID, string) {
	t.Helper()
	id := create(t, w.repC)
	page, _ := show(t, w.repC, id)
	owner := ownerID(t, page.Body, 0)
	for _, s := range []struct {
		section string
		values  url.Values
	}{
		{"business", url.Values{"business.legal_name": {"Blue Fern Coffee LLC"}, "business.entity_type": {"llc"}, "business.tin": {testTIN}}},
		{"owners", url.Values{"owners.0.id": {owner}, "owners.0.first_name": {"Jane"}, "owners.0.ssn": {testSSN}, "owners.control_person": {owner}}},
		{"bank", url.Values{"bank.routing_number": {"011401533"}, "bank.account_number": {testAccount}}},
	} {
		if res := autosave(t, w.repC, id, s.section, s.values); res.Status != http.StatusOK {
			t.Fatalf("save %s: %d\n%s", s.section, res.Status, res.Body)
		}
	}
	return id, owner
}

func TestPersonalDataIsEncryptedAtRest(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	id, _ := fillPersonalData(t, w)
	// Every column of the row and of its audit trail, as text.
	var rows []string
	for _, q := range []string{
		`SELECT row_to_json(a)::text FROM applications a WHERE id = $1`,
		`SELECT row_to_json(e)::text FROM audit_events e WHERE subject_kind = 'application' AND subject_id = $1`,
	} {
		r, err := w.env.DB.Pool.Query(context.Background(), q, id)
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
			var s string
			if err := r.Scan(&s); err != nil {
				t.Fatal(err)
			}
			rows = append(rows, s)
		}
		r.Close()
	}
	raw := strings.Join(rows, "\n")
	for _, secret := range []string{testSSN, "234566789", testTIN, "987654321", testAccount} {
		if strings.Contains(raw, secret) {
			t.Errorf("the raw tables hold %q", secret)
		}
	}
	if !strings.Contains(raw, `"ssn": "v1.test.`) || !strings.Contains(raw, `"tin": "v1.test.`) || !strings.Contains(raw, `"account_number": "v1.test.`) {
		t.Errorf("no sealed values in the draft:\n%s", raw)
	}
	// And they open again.
	d := stored(t, w, id).Draft
	if d.Owners[0].SSN != "234566789" || d.Business.TIN != "987654321" || d.Bank.AccountNumber != testAccount {
		t.Errorf("decrypted %q %q %q", d.Owners[0].SSN, d.Business.TIN, d.Bank.AccountNumber)
	}
}

func TestPersonalDataIsShownMaskedAndKeptWhenTheMaskComesBack(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	id, owner := fillPersonalData(t, w)
	page, _ := show(t, w.repC, id)
	for _, secret := range []string{"234566789", testSSN, "987654321", testTIN, testAccount} {
		if strings.Contains(page.Body, secret) {
			t.Errorf("the page shows %q", secret)
		}
	}
	masks := map[string]string{"owners.0.ssn": "•••• 6789", "business.tin": "•••• 4321", "bank.account_number": "•••• 6789"}
	for field, mask := range masks {
		if v, _ := inputValue(page.Body, field); v != mask {
			t.Errorf("%s shown as %q, want %q", field, v, mask)
		}
		if tag := inputTag(page.Body, field); !strings.Contains(tag, `autocomplete="off"`) {
			t.Errorf("%s may be autocompleted: %s", field, tag)
		}
	}
	if strings.Contains(page.Body, "Reveal") {
		t.Error("a rep is offered to reveal")
	}
	before := len(events(t, w, id))

	// The form posts the masks back unchanged, with another change: the numbers stay.
	res := autosave(t, w.repC, id, "owners", url.Values{
		"owners.0.id": {owner}, "owners.0.first_name": {"Janet"}, "owners.0.ssn": {"•••• 6789"}, "owners.control_person": {owner},
	})
	if res.Status != http.StatusOK {
		t.Fatalf("%d\n%s", res.Status, res.Body)
	}
	if v, _ := inputValue(res.Body, "owners.0.ssn"); v != "•••• 6789" {
		t.Errorf("after save SSN shown as %q", v)
	}
	d := stored(t, w, id).Draft
	if d.Owners[0].SSN != "234566789" || d.Owners[0].FirstName != "Janet" {
		t.Errorf("owner = %+v", d.Owners[0])
	}
	evs := events(t, w, id)
	if len(evs) != before+1 || strings.Join(evs[len(evs)-1].Fields, ",") != "owners.0.first_name" {
		t.Errorf("audit after the unchanged mask: %+v", evs[len(evs)-1])
	}

	// Typing a new number replaces it; a typo is refused and shown back as typed, not saved.
	res = autosave(t, w.repC, id, "bank", url.Values{"bank.routing_number": {"011401533"}, "bank.account_number": {"12"}})
	if res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("%d", res.Status)
	}
	if v, _ := inputValue(res.Body, "bank.account_number"); v != "12" {
		t.Errorf("typo shown as %q", v)
	}
	if got := stored(t, w, id).Draft.Bank.AccountNumber; got != testAccount {
		t.Errorf("account = %q after a refused typo", got)
	}
	res = autosave(t, w.repC, id, "bank", url.Values{"bank.routing_number": {"011401533"}, "bank.account_number": {"555566667777"}})
	if res.Status != http.StatusOK {
		t.Fatalf("%d", res.Status)
	}
	if v, _ := inputValue(res.Body, "bank.account_number"); v != "•••• 7777" {
		t.Errorf("new account shown as %q", v)
	}
	if got := stored(t, w, id).Draft.Bank.AccountNumber; got != "555566667777" {
		t.Errorf("account = %q", got)
	}
	// Clearing the field clears the number.
	autosave(t, w.repC, id, "bank", url.Values{"bank.routing_number": {"011401533"}, "bank.account_number": {""}})
	if got := stored(t, w, id).Draft.Bank.AccountNumber; got != "" {
		t.Errorf("account = %q after clearing", got)
	}
}

func TestAdminRevealsPersonalDataThroughAnAuditedAction(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	id, owner := fillPersonalData(t, w)
	page, _ := show(t, w.adminC, id)
	key := "owners." + owner + ".ssn"
	if !strings.Contains(page.Body, `form="reveal-form" name="field" value="`+key+`"`) {
		t.Fatalf("no reveal button for the SSN\n%s", page.Body)
	}
	if strings.Contains(page.Body, "234566789") {
		t.Fatal("the admin's page shows the SSN before it is revealed")
	}
	res := w.adminC.HTMXPost("/applications/"+id.String()+"/reveal", url.Values{"field": {key}})
	if res.Status != http.StatusOK || !strings.Contains(res.Body, "<code>234566789</code>") {
		t.Fatalf("reveal: %d\n%s", res.Status, res.Body)
	}
	if res.Header.Get("Cache-Control") != "no-store" {
		t.Error("a revealed value may be cached")
	}
	// Without htmx: a page with the value.
	res = w.adminC.PostForm("/applications/"+id.String()+"/reveal", url.Values{"field": {"business.tin"}})
	if res.Status != http.StatusOK || !strings.Contains(res.Body, "987654321") {
		t.Fatalf("reveal page: %d\n%s", res.Status, res.Body)
	}
	evs := events(t, w, id)
	var revealed []string
	for _, e := range evs {
		if e.Action == "revealed" {
			revealed = append(revealed, strings.Join(e.Fields, ","))
			if strings.Contains(string(e.Details), "6789") || strings.Contains(string(e.Details), "4321") {
				t.Errorf("audit details hold the value: %s", e.Details)
			}
			if e.ActorID == nil || *e.ActorID != w.admin.ID {
				t.Error("reveal not attributed to the admin")
			}
		}
	}
	if strings.Join(revealed, " ") != "owners.0.ssn business.tin" {
		t.Errorf("revealed entries = %v", revealed)
	}
	history := w.adminC.Get("/applications/" + id.String() + "/history")
	if !strings.Contains(history.Body, "revealed Owner 1 SSN") || !strings.Contains(history.Body, "revealed TIN") {
		t.Errorf("history:\n%s", history.Body)
	}

	// A rep may not reveal, even on their own application; an unknown key is refused.
	if res := w.repC.HTMXPost("/applications/"+id.String()+"/reveal", url.Values{"field": {key}}); res.Status != http.StatusForbidden {
		t.Errorf("rep reveal: %d", res.Status)
	}
	if res := w.adminC.HTMXPost("/applications/"+id.String()+"/reveal", url.Values{"field": {"owners.nobody.ssn"}}); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("unknown key: %d", res.Status)
	}
}
