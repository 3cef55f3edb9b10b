package drafts

import (
	"testing"
)

func TestNormalize(t *testing.T) {
	d := completeDraft(EntityLLC)
	d.Business.LegalName = "  Blue Fern Coffee LLC "
	d.Business.TIN = "12-3456789"
	d.Business.Address.State = "ca"
	d.Business.IncorporationState = "de"
	d.Business.MonthlyVolume = "45,000.50"
	d.Business.CardPresentPct = " 80 "
	d.Owners[0].SSN = "234 56 6789"
	d.Owners[0].Address.State = "Calif" // invalid: kept as typed
	d.Owners[0].OwnershipPct = "1,000"  // invalid percentage: kept as typed
	d.Bank.RoutingNumber = "0114-0153-3"
	d.Bank.AccountNumber = "0001 2345 6789"
	d.Business.Phone = "(415) 555-0100"
	d.Normalize()

	checks := []struct{ got, want string }{
		{d.Business.LegalName, "Blue Fern Coffee LLC"},
		{d.Business.TIN, "123456789"},
		{d.Business.Address.State, "CA"},
		{d.Business.IncorporationState, "DE"},
		{d.Business.MonthlyVolume, "45000.50"},
		{d.Business.CardPresentPct, "80"},
		{d.Owners[0].SSN, "234566789"},
		{d.Owners[0].Address.State, "Calif"},
		{d.Owners[0].OwnershipPct, "1,000"},
		{d.Bank.RoutingNumber, "011401533"},
		{d.Bank.AccountNumber, "000123456789"},
		{d.Business.Phone, "4155550100"},
	}
	for i, c := range checks {
		if c.got != c.want {
			t.Errorf("check %d: got %q, want %q", i, c.got, c.want)
		}
	}

	bad := Draft{Business: Business{TIN: "12-34"}, Owners: []Owner{{SSN: "666-12-3456"}}, Bank: Bank{RoutingNumber: "12-34", AccountNumber: "12"}}
	bad.Normalize()
	if bad.Business.TIN != "12-34" || bad.Owners[0].SSN != "666-12-3456" || bad.Bank.RoutingNumber != "12-34" || bad.Bank.AccountNumber != "12" {
		t.Errorf("malformed values must stay as typed: %+v", bad)
	}

	once := completeDraft(EntitySoleProprietor)
	once.Normalize()
	twice := once
	twice.Owners = append([]Owner(nil), once.Owners...)
	twice.Normalize()
	if twice.Business != once.Business || twice.Owners[0] != once.Owners[0] || twice.Bank != once.Bank {
		t.Error("Normalize is not idempotent")
	}
	if errs := once.Validate(now); errs != nil {
		t.Errorf("a normalized complete draft must stay valid: %v", errs)
	}
}

func TestSensitiveFields(t *testing.T) {
	d := completeDraft(EntityLLC)
	d.Owners = append(d.Owners, secondOwner())
	fields := d.SensitiveFields()
	want := []struct{ field, key, value string }{
		{"business.tin", "business.tin", "12-3456789"},
		{"owners.0.ssn", "owners.owner-1.ssn", "234-56-6789"},
		{"owners.1.ssn", "owners.owner-2.ssn", "234-56-7890"},
		{"bank.account_number", "bank.account_number", "000123456789"},
	}
	if len(fields) != len(want) {
		t.Fatalf("got %d fields", len(fields))
	}
	for i, w := range want {
		f := fields[i]
		if f.Field != w.field || f.Key != w.key || *f.Value != w.value {
			t.Errorf("field %d = %s %s %s", i, f.Field, f.Key, *f.Value)
		}
		*f.Value = "sealed"
	}
	if d.Business.TIN != "sealed" || d.Owners[1].SSN != "sealed" || d.Bank.AccountNumber != "sealed" {
		t.Error("SensitiveFields must point into the draft")
	}
}

func TestTaxID(t *testing.T) {
	d := completeDraft(EntitySoleProprietor)
	if d.TaxID() != "12-3456789" {
		t.Errorf("TaxID = %q", d.TaxID())
	}
	d.Business.TIN = ""
	if d.TaxID() != "234-56-6789" {
		t.Errorf("sole proprietor without TIN: TaxID = %q", d.TaxID())
	}
	d.Business.EntityType = EntityLLC
	if d.TaxID() != "" {
		t.Errorf("an LLC never falls back to an SSN: %q", d.TaxID())
	}
}

// People type amounts with a dollar sign and commas, phones in any common format, EINs with
// or without the dash and ZIP+4 codes with or without it: each is accepted and stored one
// way; what still cannot be read keeps a message at its field.
func TestTypedFormsAreAcceptedAndStoredOneWay(t *testing.T) {
	cases := []struct {
		field, typed, stored string
	}{
		{"business.monthly_volume", "$62,000", "62000"},
		{"business.monthly_volume", "62,000.00", "62000.00"},
		{"business.monthly_volume", "62000", "62000"},
		{"business.monthly_volume", "$ 62,000.50", "62000.50"},
		{"business.average_ticket", "US$12.50", "12.50"},
		{"business.highest_ticket", "250 USD", "250"},
		{"business.phone", "(415) 555-0100", "4155550100"},
		{"business.phone", "415.555.0100", "4155550100"},
		{"business.phone", "+1 415 555 0100", "4155550100"},
		{"business.phone", "1-415-555-0100", "4155550100"},
		{"contact.phone", "415 555 0100", "4155550100"},
		{"owners.0.phone", "+44 20 7946 0958", "+442079460958"},
		{"business.tin", "12-3456789", "123456789"},
		{"business.tin", "123456789", "123456789"},
		{"business.address.postal_code", "94105", "94105"},
		{"business.address.postal_code", "941051234", "94105-1234"},
		{"business.address.postal_code", "94105 1234", "94105-1234"},
		{"owners.0.address.postal_code", "94105-1234", "94105-1234"},
	}
	for _, c := range cases {
		d := completeDraft(EntityLLC)
		if err := d.Set(c.field, c.typed); err != nil {
			t.Fatal(err)
		}
		if errs := d.Validate(now); errs[c.field] != "" {
			t.Errorf("%s %q refused: %s", c.field, c.typed, errs[c.field])
			continue
		}
		d.Normalize()
		if got, _ := d.Get(c.field); got != c.stored {
			t.Errorf("%s %q stored as %q, want %q", c.field, c.typed, got, c.stored)
		}
	}

	for _, c := range []struct{ field, typed string }{
		{"business.monthly_volume", "$62,00"},
		{"business.monthly_volume", "sixty thousand"},
		{"business.monthly_volume", "$-5"},
		{"business.phone", "555-0100"},
		{"business.phone", "(415) 555-0100 ext 12"},
		{"business.tin", "12-345678"},
		{"business.address.postal_code", "9410"},
		{"business.address.postal_code", "94105-12"},
	} {
		d := completeDraft(EntityLLC)
		if err := d.Set(c.field, c.typed); err != nil {
			t.Fatal(err)
		}
		if errs := d.Validate(now); errs[c.field] == "" {
			t.Errorf("%s %q accepted, want a message at the field", c.field, c.typed)
		}
		d.Normalize()
		if got, _ := d.Get(c.field); got != c.typed {
			t.Errorf("%s %q refused but stored as %q: what was typed must stay", c.field, c.typed, got)
		}
	}
}

func TestFormatPhone(t *testing.T) {
	for in, want := range map[string]string{
		"4155550100": "(415) 555-0100", "+442079460958": "+442079460958", "": "", "0123456789": "0123456789",
	} {
		if got := FormatPhone(in); got != want {
			t.Errorf("FormatPhone(%q) = %q, want %q", in, got, want)
		}
	}
}
