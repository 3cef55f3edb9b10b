package drafts

import (
	"slices"
	"strings"
	"testing"
)

// The registry names the personal data; every other part of the portal (the sealer, the
// masks, the reveal button, the audit of a reveal) reads it from SensitiveFields.
func TestSensitiveFieldsComeFromTheRegistry(t *testing.T) {
	d := completeDraft(EntityLLC)
	d.Owners = append(d.Owners, secondOwner())
	var fields, keys []string
	for _, f := range d.SensitiveFields() {
		fields = append(fields, f.Field)
		keys = append(keys, f.Key)
		if got, _ := d.Get(f.Field); got != *f.Value {
			t.Errorf("%s points at %q, the field holds %q", f.Field, *f.Value, got)
		}
	}
	if want := []string{"business.tin", "owners.0.ssn", "owners.1.ssn", "bank.account_number"}; !slices.Equal(fields, want) {
		t.Errorf("fields %q, want %q", fields, want)
	}
	if want := []string{"business.tin", "owners.owner-1.ssn", "owners.owner-2.ssn", "bank.account_number"}; !slices.Equal(keys, want) {
		t.Errorf("keys %q, want %q", keys, want)
	}
}

// Every field a form can post has a label and an input in the registry.
func TestEveryFieldIsRegistered(t *testing.T) {
	d := completeDraft(EntityLLC)
	for _, name := range d.FieldNames() {
		info, pos := lookupField(name)
		if pos == len(fieldTable) || info.label == "" {
			t.Errorf("%s is not in the registry", name)
		}
		if f := Input(name, ""); f.Kind == "" || f.Label != info.label {
			t.Errorf("%s: input %+v", name, f)
		}
	}
}

func TestMaskedKeepsOnlyHeldValues(t *testing.T) {
	d := completeDraft(EntityLLC)
	m := d.Masked(map[string]bool{"bank.account_number": true})
	if m.Owners[0].SSN != "•••• 6789" || m.Business.TIN != "•••• 6789" || m.Bank.AccountNumber != d.Bank.AccountNumber {
		t.Errorf("masked: %q %q %q", m.Owners[0].SSN, m.Business.TIN, m.Bank.AccountNumber)
	}
	if d.Owners[0].SSN != "234-56-6789" {
		t.Error("masked changed its receiver")
	}
}

// Every phone, ZIP code, amount of money, SSN and TIN of the registry formats as it is
// typed, and nothing else does (assets/js/format.js knows these kinds).
func TestFormatsComeFromTheRegistry(t *testing.T) {
	for _, f := range fieldTable {
		want := ""
		switch {
		case f.input.typ == "tel":
			want = "phone"
		case strings.HasSuffix(f.pattern, ".postal_code"):
			want = "zip"
		case f.kind == kindMoney:
			want = "money"
		case f.pattern == "owners.*.ssn":
			want = "ssn"
		case f.pattern == FieldBusinessTIN:
			want = "tin"
		}
		if f.input.format != want {
			t.Errorf("%s formats as %q, want %q", f.pattern, f.input.format, want)
		}
	}
	if got := Input("owners.2.phone", "").Format; got != "phone" {
		t.Errorf("an owner's phone formats as %q", got)
	}
}
