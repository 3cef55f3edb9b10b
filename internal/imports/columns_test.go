package imports

import (
	"slices"
	"testing"
)

func TestGuessMapping(t *testing.T) {
	headers := []string{"business.legal_name", "Legal Name", "DBA name", "SSN", "Owner 2 SSN", "City", "Contact e-mail", "Favourite colour", "owners.1.first_name"}
	got := GuessMapping(headers)
	want := []string{"business.legal_name", "", "business.dba", "owners.0.ssn", "owners.1.ssn", "", "contact.email", "", "owners.1.first_name"}
	if !slices.Equal(got, want) {
		t.Errorf("GuessMapping:\n got %q\nwant %q", got, want)
	}
}

func TestTemplateHeaderComesFromTheRegistry(t *testing.T) {
	h := TemplateHeader()
	for _, must := range []string{"business.legal_name", "business.tin", "owners.0.ssn", "bank.account_number", "contact.email", FieldPricing, "notes"} {
		if !slices.Contains(h, must) {
			t.Errorf("template lacks %s", must)
		}
	}
	for _, never := range []string{"owners.0.id", "owners.0.is_control_person", "owners.1.first_name"} {
		if slices.Contains(h, never) {
			t.Errorf("template has %s", never)
		}
	}
	sensitive := 0
	for _, c := range Columns() {
		if c.Sensitive {
			sensitive++
		}
	}
	// The TIN, the account number and each of three owners' SSNs.
	if sensitive != 5 {
		t.Errorf("%d sensitive columns", sensitive)
	}
}

func TestSameMerchantRule(t *testing.T) {
	f := newSameFile()
	rows := []candidate{
		{Number: 2, TIN: "123456789", NameKey: "blue fern llc"},
		{Number: 3, TIN: "123456789", NameKey: "another name"},  // same TIN
		{Number: 4, TIN: "987654321", NameKey: "blue fern llc"}, // same name, other TIN: another business
		{Number: 5, TIN: "", NameKey: "blue fern llc"},          // same name, no TIN
		{Number: 6, TIN: "", NameKey: "red door"},
	}
	want := []int{0, 2, 0, 2, 0}
	for i, c := range rows {
		if got := f.earlier(c); got != want[i] {
			t.Errorf("row %d: earlier %d, want %d", c.Number, got, want[i])
		}
	}
}

func TestSafeCell(t *testing.T) {
	for in, want := range map[string]string{"=1+1": "'=1+1", "+1": "'+1", "-2": "'-2", "@SUM(A1)": "'@SUM(A1)", "plain": "plain", "": ""} {
		if got := safeCell(in); got != want {
			t.Errorf("safeCell(%q) = %q", in, got)
		}
	}
}
