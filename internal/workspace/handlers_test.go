package workspace_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

func TestCreateShowsWorkspace(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	id := create(t, w.repC)
	res, version := show(t, w.repC, id)
	if version != "1" {
		t.Errorf("version = %s, want 1", version)
	}
	for _, want := range []string{
		`id="section-business"`, `id="section-owners"`, `id="section-bank"`, `id="section-contact"`,
		`id="section-pricing"`, `id="section-notes"`, `id="checklist"`, `id="submit-application"`,
		`<section id="documents" class="app-section" aria-label="Documents" hx-get="/applications/` + id.String() + `/documents" hx-trigger="load">`,
		`id="owners.0.first_name"`, `rep@example.com</strong> created the application`,
	} {
		if !strings.Contains(res.Body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if !strings.Contains(inputTag(res.Body, "owners.0.first_name"), `name="owners.0.first_name"`) {
		t.Error("owner field without its canonical name")
	}
}

func TestSaveKeepsTypedValuesAndShowsMessageBesideField(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	id := create(t, w.repC)
	res := save(t, w.repC, id, "business", url.Values{
		"business.legal_name": {"Blue Fern Coffee LLC"},
		"business.email":      {"not-an-email"},
		"business.phone":      {"(415) 555-0100"},
	})
	if res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422\n%s", res.Status, res.Body)
	}
	tag := inputTag(res.Body, "business.email")
	for _, want := range []string{`value="not-an-email"`, `aria-invalid="true"`, `aria-describedby="business.email-error"`} {
		if !strings.Contains(tag, want) {
			t.Errorf("e-mail input %s lacks %s", tag, want)
		}
	}
	msg := "Business e-mail must be an address like name@example.com."
	if !strings.Contains(res.Body, `<small id="business.email-error" class="field-error">`+msg+`</small>`) {
		t.Errorf("no message beside the field\n%s", res.Body)
	}
	if !strings.Contains(res.Body, `<li><a href="#business.email">`+msg+`</a></li>`) {
		t.Error("no summary link to the field")
	}
	if v, _ := inputValue(res.Body, "business.legal_name"); v != "Blue Fern Coffee LLC" {
		t.Errorf("legal name shown as %q", v)
	}
	// The valid values were saved; the invalid one was held back.
	rec := stored(t, w, id)
	if rec.Draft.Business.LegalName != "Blue Fern Coffee LLC" || rec.Draft.Business.Phone != "4155550100" || rec.Draft.Business.Email != "" {
		t.Errorf("stored business = %+v", rec.Draft.Business)
	}
}

func TestAutosaveReturnsSectionWithNewVersionForOtherSections(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	id := create(t, w.repC)
	res := autosave(t, w.repC, id, "contact", url.Values{"contact.name": {"Jane Doe"}, "contact.email": {"jane@bluefern.example"}})
	if res.Status != http.StatusOK {
		t.Fatalf("status %d\n%s", res.Status, res.Body)
	}
	if got := res.Header.Get("HX-Trigger"); got != "application-changed" {
		t.Errorf("HX-Trigger = %q", got)
	}
	if !strings.HasPrefix(strings.TrimSpace(res.Body), `<section id="section-contact"`) || strings.Contains(res.Body, "<html") {
		t.Errorf("not the section fragment:\n%s", res.Body)
	}
	if !strings.Contains(res.Body, `role="status" aria-live="polite">Saved `) {
		t.Error("no saved status")
	}
	for _, s := range []string{"business", "owners", "bank", "pricing", "notes"} {
		if !strings.Contains(res.Body, `<input type="hidden" name="version" id="version-`+s+`" value="2" hx-swap-oob="true">`) {
			t.Errorf("no new version for %s", s)
		}
	}
	if strings.Contains(res.Body, `id="version-contact" value="2" hx-swap-oob`) {
		t.Error("the saved section's own version must come with the section, not out of band")
	}

	// An invalid value: 422 with the section, the message beside the field and its summary.
	res = autosave(t, w.repC, id, "contact", url.Values{"contact.name": {"Jane Doe"}, "contact.email": {"jane@"}})
	if res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d\n%s", res.Status, res.Body)
	}
	if v, _ := inputValue(res.Body, "contact.email"); v != "jane@" {
		t.Errorf("typed e-mail shown as %q", v)
	}
	if !strings.Contains(res.Body, `id="contact.email-error"`) || !strings.Contains(res.Body, `class="error-summary" role="alert"`) {
		t.Errorf("no message or summary in the fragment\n%s", res.Body)
	}
	if !strings.Contains(res.Body, "except 1 field marked below") {
		t.Error("status does not say the field was held back")
	}
	if got := stored(t, w, id).Draft.Contact.Email; got != "jane@bluefern.example" {
		t.Errorf("stored e-mail = %q, want the last valid one", got)
	}
}

func TestStaleVersionIsRefusedWith409(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	id := create(t, w.repC)
	_, version := show(t, w.repC, id)
	// Another tab saves first.
	if res := autosave(t, w.repC, id, "notes", url.Values{"notes": {"first tab"}}); res.Status != http.StatusOK {
		t.Fatalf("first save: %d", res.Status)
	}
	values := url.Values{"notes": {"second tab"}, "version": {version}}
	// The message names the time of the other change in the rep's zone, even as
	// htmx's plain-text answer, which no page is rendered around.
	if err := w.env.App.Auth.SetTimeZone(context.Background(), w.rep, "Asia/Kathmandu", true); err != nil {
		t.Fatal(err)
	}
	res := w.repC.HTMXPost("/applications/"+id.String()+"/sections/notes", values)
	if res.Status != http.StatusConflict || !strings.Contains(res.Body, "this application was changed elsewhere") {
		t.Fatalf("htmx: status %d\n%s", res.Status, res.Body)
	}
	if strings.ContainsAny(res.Body, "\uE000\uE001") || !regexp.MustCompile(`at \d{2}:\d{2} \+0545,`).MatchString(res.Body) {
		t.Errorf("htmx: the time of the other change is not in the rep's zone: %q", res.Body)
	}
	// Without htmx the page comes back with the typed values and the current version.
	w.repC.Get("/applications/" + id.String())
	res = w.repC.PostForm("/applications/"+id.String()+"/sections/notes", values)
	if res.Status != http.StatusConflict {
		t.Fatalf("form: status %d\n%s", res.Status, res.Body)
	}
	if !strings.Contains(res.Body, ">second tab</textarea>") || !strings.Contains(res.Body, `id="version-notes" value="2"`) ||
		!strings.Contains(res.Body, "Save again to replace that change with yours") {
		t.Errorf("conflict page lacks the typed value, the current version or the explanation\n%s", res.Body)
	}
	if got := stored(t, w, id).Draft.Notes; got != "first tab" {
		t.Errorf("notes = %q: the stale save overwrote the first", got)
	}
	// The message is beside the field that conflicted, not only at the top of the page.
	if !strings.Contains(res.Body, `<small id="notes-error" class="field-error">Not saved: this application was changed elsewhere`) ||
		!strings.Contains(inputTag(res.Body, "notes"), `aria-describedby="notes-error`) {
		t.Errorf("the conflict is not beside the notes field\n%s", res.Body)
	}
	// A conflict in the business step shows that step, with the message at the field.
	_, version = show(t, w.repC, id)
	autosave(t, w.repC, id, "business", url.Values{"business.dba": {"Blue Fern"}})
	res = w.repC.PostForm("/applications/"+id.String()+"/sections/business", url.Values{"business.dba": {"Green Fern"}, "version": {version}})
	if res.Status != http.StatusConflict || !strings.Contains(res.Body, `<small id="business.dba-error" class="field-error">Not saved: this application was changed elsewhere`) ||
		!strings.Contains(res.Body, `id="step-business" aria-current="step"`) || strings.Contains(res.Body, `id="business.legal_name-error"`) {
		t.Errorf("the business conflict is not beside its field, on its step\n%s", res.Body)
	}
}

func TestSaveWithoutJavaScriptRedirects(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	id := create(t, w.repC)
	res := save(t, w.repC, id, "bank", url.Values{"bank.holder_name": {"Blue Fern"}, "bank.routing_number": {"011401533"}, "bank.account_type": {"checking"}})
	if res.Status != http.StatusSeeOther || res.Location != "/applications/"+id.String()+"?step=bank" {
		t.Fatalf("status %d location %q\n%s", res.Status, res.Location, res.Body)
	}
	page, _ := show(t, w.repC, id)
	if !strings.Contains(page.Body, "Deposit account saved.") {
		t.Error("no flash after the redirect")
	}
	if v, _ := inputValue(page.Body, "bank.routing_number"); v != "011401533" {
		t.Errorf("routing number shown as %q", v)
	}
}

func TestOwnersAddRemoveAndControlPerson(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	id := create(t, w.repC)
	page, _ := show(t, w.repC, id)
	first := ownerID(t, page.Body, 0)
	res := autosave(t, w.repC, id, "owners", url.Values{
		"owners.0.id": {first}, "owners.0.first_name": {"Jane"}, "owners.control_person": {first}, "owner_action": {"add"},
	})
	if res.Status != http.StatusOK || !strings.Contains(res.Body, "Owner added.") {
		t.Fatalf("add: %d\n%s", res.Status, res.Body)
	}
	if !strings.Contains(inputTag(res.Body, "owners.1.first_name"), "autofocus") {
		t.Error("the new owner's first name is not focused")
	}
	second := ownerID(t, res.Body, 1)
	res = autosave(t, w.repC, id, "owners", url.Values{
		"owners.0.id": {first}, "owners.0.first_name": {"Jane"},
		"owners.1.id": {second}, "owners.1.first_name": {"Sam"}, "owners.control_person": {second},
	})
	if res.Status != http.StatusOK {
		t.Fatalf("save: %d\n%s", res.Status, res.Body)
	}
	d := stored(t, w, id).Draft
	if len(d.Owners) != 2 || d.Owners[1].FirstName != "Sam" || d.Owners[0].IsControlPerson || !d.Owners[1].IsControlPerson {
		t.Fatalf("owners = %+v", d.Owners)
	}
	res = autosave(t, w.repC, id, "owners", url.Values{
		"owners.0.id": {first}, "owners.0.first_name": {"Jane"},
		"owners.1.id": {second}, "owners.1.first_name": {"Sam"}, "owners.control_person": {second},
		"owner_action": {"remove:" + first},
	})
	if res.Status != http.StatusOK {
		t.Fatalf("remove: %d\n%s", res.Status, res.Body)
	}
	d = stored(t, w, id).Draft
	if len(d.Owners) != 1 || d.Owners[0].ID != second || d.Owners[0].FirstName != "Sam" {
		t.Fatalf("after removal owners = %+v", d.Owners)
	}
	var fields []string
	for _, e := range events(t, w, id) {
		fields = append(fields, e.Fields...)
	}
	joined := strings.Join(fields, " ")
	for _, want := range []string{"owners.1.added", "owners.0.removed", "owners.1.first_name", "owners.1.is_control_person"} {
		if !strings.Contains(joined, want) {
			t.Errorf("audit fields %v lack %s", fields, want)
		}
	}
}
