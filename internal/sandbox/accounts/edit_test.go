package accounts_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	sandbox "github.com/payportal/portal/internal/sandbox/accounts"
)

// businessForm is the business section's form as the edit page posts it,
// with the values of detailsWithoutBanking and the overrides.
func businessForm(overrides map[string]string) url.Values {
	form := url.Values{
		"business.dba": {"Corner Coffee"}, "business.type": {""}, "business.goodsAndServices": {"Coffee"},
		"business.phone": {"(512) 555-0134"}, "business.email": {"a@corner.example"}, "business.websiteUrl": {""},
		"business.address.line1": {"1 Main St"}, "business.address.line2": {""}, "business.address.city": {"Austin"},
		"business.address.state": {"TX"}, "business.address.postalCode": {"78701"}, "business.mcc": {""},
		"business.monthlyVolume": {""}, "business.averageTicket": {""}, "business.highTicket": {""},
	}
	for k, v := range overrides {
		form.Set(k, v)
	}
	return form
}

func TestDetailsPageShowsValuesForPeople(t *testing.T) {
	s := newSandbox(t, nil)
	d := detailsWithoutBanking()
	d["business"].(map[string]any)["monthlyVolume"] = "62000.00"
	d["business"].(map[string]any)["phone"] = "5035550142"
	// The portal sends business.type the legal entity type's value too.
	d["business"].(map[string]any)["type"] = "llc"
	id := s.start(t, d)
	path := strings.TrimPrefix(s.link(t, id), s.url)
	_, _, body := s.page(t, http.MethodGet, path, nil, nil)
	for _, want := range []string{"Limited liability company (LLC)", "(503) 555-0142", "$62,000.00", "December 10, 1980", "100%", "•••• 6789",
		`href="` + path + `/edit/business"`, `href="` + path + `/edit/owner-1"`, `href="` + path + `/edit/contact"`} {
		if !strings.Contains(body, want) {
			t.Errorf("details page lacks %q", want)
		}
	}
	for _, raw := range []string{">llc<", "5035550142", "62000.00", "123456789"} {
		if strings.Contains(body, raw) {
			t.Errorf("details page shows the raw value %q", raw)
		}
	}
}

func TestMerchantEditsValues(t *testing.T) {
	s := newSandbox(t, nil)
	id := s.start(t, detailsWithoutBanking())
	path := strings.TrimPrefix(s.link(t, id), s.url)

	status, _, body := s.page(t, http.MethodGet, path+"/edit/business", nil, nil)
	if status != http.StatusOK || !strings.Contains(body, `value="(512) 555-0134"`) || !strings.Contains(body, `name="business.websiteUrl"`) {
		t.Fatalf("edit page: %d\n%s", status, body)
	}
	// Saved untouched, the page changes nothing.
	if status, loc, _ := s.page(t, http.MethodPost, path+"/edit/business", businessForm(nil), nil); status != http.StatusSeeOther || loc != path+"?saved=1" {
		t.Fatalf("untouched save: %d %s", status, loc)
	}
	if a, _ := s.Application(id); len(a.Changes) != 0 || !strings.Contains(string(a.Data), `"phone":"5125550134"`) {
		t.Fatalf("untouched save changed %v %s", a.Changes, a.Data)
	}

	// Wrong values: 422, a message beside each, an error summary linking
	// to the fields, every typed value kept, nothing saved.
	bad := businessForm(map[string]string{"business.phone": "555-0134", "business.address.postalCode": "7870", "business.dba": ""})
	status, _, body = s.page(t, http.MethodPost, path+"/edit/business", bad, nil)
	if status != http.StatusUnprocessableEntity {
		t.Fatalf("bad values: %d", status)
	}
	for _, want := range []string{`href="#f-business-phone"`, `href="#f-business-address-postalCode"`, `href="#f-business-dba"`,
		"Must be a 10-digit US phone number.", "This detail is required.", `value="555-0134"`, `id="f-business-phone-error"`} {
		if !strings.Contains(body, want) {
			t.Errorf("error page lacks %q", want)
		}
	}

	// Good changes are saved as the API stores them and kept in the history.
	good := businessForm(map[string]string{"business.phone": "+1 (503) 555-0142", "business.monthlyVolume": "$62,000",
		"business.websiteUrl": "https://corner.example"})
	if status, _, body := s.page(t, http.MethodPost, path+"/edit/business", good, nil); status != http.StatusSeeOther {
		t.Fatalf("good values: %d\n%s", status, body)
	}
	a, _ := s.Application(id)
	for _, want := range []string{`"phone":"5035550142"`, `"monthlyVolume":"62000.00"`, `"websiteUrl":"https://corner.example"`} {
		if !strings.Contains(string(a.Data), want) {
			t.Errorf("data lacks %s: %s", want, a.Data)
		}
	}
	if len(a.Changes) != 1 || a.Changes[0].By != "merchant" || len(a.Changes[0].Fields) != 3 {
		t.Fatalf("changes = %+v", a.Changes)
	}
	if f := a.Changes[0].Fields[0]; f.Label != "Business phone" || f.From != "(512) 555-0134" || f.To != "(503) 555-0142" {
		t.Errorf("phone change = %+v", f)
	}

	// Personal data: masked, kept when left empty, replaced when typed.
	_, _, body = s.page(t, http.MethodGet, path+"/edit/legalEntity", nil, nil)
	if strings.Contains(body, "123456789") || !strings.Contains(body, "Currently •••• 6789") {
		t.Errorf("legal entity page shows the TIN or not its mask:\n%s", body)
	}
	entity := url.Values{"legalEntity.type": {"corporation"}, "legalEntity.name": {"Corner Coffee Inc"}, "legalEntity.tin": {""}}
	if status, _, body := s.page(t, http.MethodPost, path+"/edit/legalEntity", entity, nil); status != http.StatusSeeOther {
		t.Fatalf("legal entity: %d\n%s", status, body)
	}
	a, _ = s.Application(id)
	if !strings.Contains(string(a.Data), `"tin":"123456789"`) || !strings.Contains(string(a.Data), `"type":"corporation"`) {
		t.Errorf("TIN lost or type not saved: %s", a.Data)
	}
	entity.Set("legalEntity.tin", "98-7654321")
	s.page(t, http.MethodPost, path+"/edit/legalEntity", entity, nil)
	a, _ = s.Application(id)
	last := a.Changes[len(a.Changes)-1]
	if len(last.Fields) != 1 || last.Fields[0].From != "•••• 6789" || last.Fields[0].To != "•••• 4321" {
		t.Errorf("TIN change = %+v", last.Fields)
	}

	// The admin page of the application shows the changes, masked.
	page := s.adminPage(t, "/_sandbox/admin/accounts/applications/"+id)
	for _, want := range []string{"Changes made by the merchant", "(503) 555-0142", "Limited liability company (LLC)", "•••• 4321"} {
		if !strings.Contains(page, want) {
			t.Errorf("admin page lacks %q", want)
		}
	}
	if strings.Contains(page, "987654321") || strings.Contains(page, "98-7654321") {
		t.Error("admin page shows the full TIN")
	}
}

func TestOwnershipRuleOnTheField(t *testing.T) {
	s := newSandbox(t, nil)
	id := s.start(t, detailsWithoutBanking())
	path := strings.TrimPrefix(s.link(t, id), s.url)
	s.page(t, http.MethodGet, path, nil, nil) // the merchant opens the link
	owner := url.Values{"owners[0].firstName": {"Ada"}, "owners[0].lastName": {"Lovelace"}, "owners[0].percentOwnership": {"101"},
		"owners[0].dob": {"1980-12-10"}}
	status, _, body := s.page(t, http.MethodPost, path+"/edit/owner-1", owner, nil)
	if status != http.StatusUnprocessableEntity || !strings.Contains(body, `href="#f-owners-0-percentOwnership"`) {
		t.Errorf("ownership over 100: %d\n%s", status, body)
	}
	if status, _, _ := s.page(t, http.MethodGet, path+"/edit/owner-7", nil, nil); status != http.StatusNotFound {
		t.Errorf("unknown section: %d, want 404", status)
	}
}

func TestNoEditsAfterAcceptance(t *testing.T) {
	s := newSandbox(t, nil)
	id, path := s.accepted(t, completeDetails("123456789", "Corner Coffee"))
	if status, loc, _ := s.page(t, http.MethodPost, path+"/edit/business", businessForm(map[string]string{"business.dba": "Other"}), nil); status != http.StatusSeeOther || loc != path+"/done" {
		t.Errorf("edit after acceptance: %d %s", status, loc)
	}
	if a, _ := s.Application(id); strings.Contains(string(a.Data), "Other") || a.Status != sandbox.StatusProcessing {
		t.Errorf("edited after acceptance: %s", a.Data)
	}
}
