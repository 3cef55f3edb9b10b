package drafts

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/validation"
)

// FuzzBindSection binds any form body to any section and validates the result: whatever
// is typed, binding never panics, and every value Validate lets through is storable text
// within its bound (the workspace saves exactly those and holds back the rest).
func FuzzBindSection(f *testing.F) {
	seeds := []struct{ section, body string }{
		{SectionBusiness, "business.legal_name=Blue%00Fern"},
		{SectionBusiness, "business.legal_name=Caf%E9+%FF&business.dba=x"},
		{SectionBusiness, "business.years_in_business=201"},
		{SectionBusiness, "business.years_in_business=12345678901234567890123"},
		{SectionBusiness, "business.monthly_volume=" + strings.Repeat("9", 400)},
		{SectionBusiness, "business.incorporation_date=1799-12-31&business.tin=12-3456789"},
		{SectionOwners, "owners.0.id=owner-1&owners.0.first_name=Ja%00ne&owners.0.date_of_birth=1900-01-01&owner_action=add"},
		{SectionOwners, "owners.0.id=owner-1&owners.control_person=owner-1&owner_action=remove:owner-1"},
		{SectionBank, "bank.holder_name=Jane%00&bank.routing_number=011401533&bank.from_merchant=on"},
		{SectionContact, "contact.name=Jane%0D%0ABcc:+x@example.com&contact.email=" + strings.Repeat("a", 300) + "@example.com"},
		{SectionNotes, "notes=line+one%0Aline+two%09tab"},
		{SectionPricing, "pricing.model=not-a-uuid"},
		{"nonsense", "version=abc"},
	}
	for _, s := range seeds {
		f.Add(s.section, s.body)
	}
	now := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, section, body string) {
		values, err := url.ParseQuery(body)
		if err != nil {
			return // the web layer answers 400 before any binder runs
		}
		d := Draft{Owners: []Owner{{ID: "owner-1", IsControlPerson: true}}}
		form := BindSection(section, values)
		form.Apply(&d)
		form.PricingChoice()
		errs := d.Validate(now)
		for _, name := range d.FieldNames() {
			v, _ := d.Get(name)
			if _, refused := errs[name]; refused || v == "" {
				continue
			}
			b, ok := lookupBound(name)
			if !ok {
				continue // a checkbox
			}
			v = strings.TrimSpace(v)
			if p := validation.CheckText(v, b.multiline); p != validation.TextOK {
				t.Fatalf("%s = %q passed validation but is not storable text (%v)", name, v, p)
			}
			if validation.TooLong(v, b.maxLen) {
				t.Fatalf("%s passed validation with %d characters, over its bound of %d", name, len(v), b.maxLen)
			}
		}
		if len(d.Owners) > MaxOwners {
			t.Fatalf("binding grew the draft to %d owners", len(d.Owners))
		}
		d.Normalize()
	})
}
