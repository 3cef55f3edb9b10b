package drafts

import "testing"

func TestDisplayWritesValuesForPeople(t *testing.T) {
	field := func(pattern string) Field {
		for _, f := range Fields(SectionOf(pattern)) {
			if f.Pattern == pattern {
				return f
			}
		}
		t.Fatalf("no field %s", pattern)
		return Field{}
	}
	for _, c := range []struct{ pattern, value, want string }{
		{"business.phone", "5035550142", "(503) 555-0142"},
		{"owners.*.phone", "5035550142", "(503) 555-0142"},
		{"contact.phone", "+44 20 7946 0958", "+44 20 7946 0958"},
		{"business.monthly_volume", "62000.00", "$62,000.00"},
		{"business.average_ticket", "45", "$45.00"},
		{"owners.*.ownership_pct", "60", "60%"},
		{"business.entity_type", "llc", "LLC"},
		{"bank.account_type", "checking", "Checking"},
		{"business.address.state", "OR", "OR"},
		{FieldBankFromMerchant, "true", "Yes"},
		{FieldBankFromMerchant, "false", ""},
		{"business.legal_name", "Corner Bakery LLC", "Corner Bakery LLC"},
		{"business.phone", "", ""},
	} {
		if got := field(c.pattern).Display(c.value); got != c.want {
			t.Errorf("%s %q: got %q, want %q", c.pattern, c.value, got, c.want)
		}
	}
}
