package drafts

import (
	"testing"

	"github.com/payportal/portal/internal/validation"
)

// The words of each struct-tag rule, one row per rule (and per field where a rule's
// words depend on it): the label and the rule's parameter where they belong, only the
// routing number quoted back, and the generic words for a rule nobody worded.
func TestTagMessageWordsEachRule(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ field, tag, param, value, want string }{
		{"business.legal_name", "max", "100", "", "Legal name can be at most 100 characters."},
		{"bank.account_type", "oneof", "", "", "Choose checking or savings."},
		{"business.entity_type", "oneof", "", "", "Choose an entity type from the list."},
		{"business.legal_name", "oneof", "", "", "Legal name must be one of the choices offered."},
		{"business.legal_name", "email", "", "", "Legal name must be an address like name@example.com."},
		{"bank.routing_number", validation.TagRoutingNumber, "", "12", "Routing number must be 9 digits."},
		{"bank.routing_number", validation.TagABAChecksum, "", "123-456-789", "Routing number 123456789 fails the ABA checksum; check the digits."},
		{"bank.routing_number", validation.TagBankAccount, "", "", "Account number must be 3 to 17 digits."},
		{"business.legal_name", validation.TagSSNFormat, "", "123", "SSN must be 9 digits (###-##-####)."},
		{"business.legal_name", validation.TagSSNIssued, "", "000-00-0000", msgSSNNotIssued},
		{"business.legal_name", validation.TagSSNOrITIN, "", "000-00-0000", msgSSNNotIssued},
		{"business.legal_name", validation.TagUSState, "", "", "Legal name must be a two-letter US state code, like CA."},
		{"business.legal_name", validation.TagZIP, "", "", "Legal name must be 5 digits, or ZIP+4 like 12345-6789."},
		{"business.legal_name", validation.TagPhone, "", "", "Legal name must be a US number of 10 digits, like (212) 555-0100, or an international number starting with +."},
		{"business.legal_name", validation.TagWebsite, "", "", "Legal name must be an address like https://example.com."},
		{"business.legal_name", validation.TagMCC, "", "", "Legal name must be 4 digits, like 5812."},
		{"business.legal_name", validation.TagNotNegative, "", "", "Legal name cannot be negative."},
		{"business.legal_name", validation.TagDecimal, "", "", "Legal name must be an amount like 1234.50."},
		{"business.keyed_pct", validation.TagDecimal, "", "", "Keyed share must be a percentage like 25 or 33.33."},
		{"business.legal_name", validation.TagMaxTwoDecimals, "", "", "Legal name can have at most two decimal places."},
		{"business.keyed_pct", validation.TagMaxHundred, "", "", "Keyed share can be at most 100%."},
		{"business.legal_name", validation.TagWholeNumber, "", "", "Legal name must be a whole number, like 3."},
		{"business.legal_name", validation.TagISODate, "", "", "Legal name must be a real date written YYYY-MM-DD."},
		{"business.legal_name", "required_if", "", "", "Legal name is not valid."},
	} {
		if got := tagMessage(tt.field, tt.tag, tt.param, tt.value); got != tt.want {
			t.Errorf("%s %s: %q, want %q", tt.field, tt.tag, got, tt.want)
		}
	}
}
