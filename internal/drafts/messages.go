package drafts

import (
	"fmt"
	"strings"

	"github.com/payportal/portal/internal/validation"
)

// Messages of the cross-field rules, shared with the tests so they cannot drift apart.
const (
	msgTINFormat        = "TIN must be an EIN of 9 digits, like 12-3456789."
	msgTINFormatSole    = "TIN must be an EIN like 12-3456789 or, for a sole proprietor, the owner's SSN or ITIN (9 digits, ###-##-####)."
	msgTINPrefix        = "This is not a valid EIN: the IRS issues no EIN starting with these two digits."
	msgTINNeither       = "This number is neither a valid EIN nor a valid SSN or ITIN; check the digits."
	msgTINNotSSN        = "Only a sole proprietor can use an SSN as TIN; enter the business's EIN."
	msgSSNNotIssued     = "This number was never issued as an SSN or ITIN; check the digits."
	msgIncorporationFut = "Incorporation date cannot be in the future."
	msgIncorporationOld = "Incorporation date must be in 1800 or later."
	msgBirthFuture      = "Date of birth cannot be in the future."
	msgBirthOld         = "Date of birth must be within the last 120 years."
	msgUnderage         = "Owners must be at least 18 years old; this date of birth makes them %d."
	msgOwnershipTotal   = "Ownership adds up to %s%%; the total can be at most 100%%."
	msgTooManyOwners    = "An application can list at most %d owners."
	msgControlPersons   = "Only one owner can be the control person; %d are marked."
	msgCardMixExact     = "Card-present, keyed and e-commerce shares add up to %s%%; they must add up to 100%%."
	msgCardMixOver      = "Card-present, keyed and e-commerce shares add up to %s%%; they can add up to at most 100%%."
	msgHighestBelowAvg  = "Highest ticket cannot be less than the average ticket."
)

// tagWords word the failure of each struct-tag rule on a field: %[1]s is the
// field's label, %[2]s the rule's parameter.
var tagWords = map[string]string{
	"max":                        "%[1]s can be at most %[2]s characters.",
	"oneof":                      "%[1]s must be one of the choices offered.",
	"email":                      "%[1]s must be an address like name@example.com.",
	validation.TagRoutingNumber:  "Routing number must be 9 digits.",
	validation.TagBankAccount:    "Account number must be 3 to 17 digits.",
	validation.TagSSNFormat:      "SSN must be 9 digits (###-##-####).",
	validation.TagSSNIssued:      msgSSNNotIssued,
	validation.TagSSNOrITIN:      msgSSNNotIssued,
	validation.TagUSState:        "%[1]s must be a two-letter US state code, like CA.",
	validation.TagZIP:            "%[1]s must be 5 digits, or ZIP+4 like 12345-6789.",
	validation.TagPhone:          "%[1]s must be a US number of 10 digits, like (212) 555-0100, or an international number starting with +.",
	validation.TagWebsite:        "%[1]s must be an address like https://example.com.",
	validation.TagMCC:            "%[1]s must be 4 digits, like 5812.",
	validation.TagNotNegative:    "%[1]s cannot be negative.",
	validation.TagDecimal:        "%[1]s must be an amount like 1234.50.",
	validation.TagMaxTwoDecimals: "%[1]s can have at most two decimal places.",
	validation.TagMaxHundred:     "%[1]s can be at most 100%%.",
	validation.TagWholeNumber:    "%[1]s must be a whole number, like 3.",
	validation.TagISODate:        "%[1]s must be a real date written YYYY-MM-DD.",
}

// choiceWords word a choice off the list for the fields whose choices have a name.
var choiceWords = map[string]string{
	"bank.account_type":    "Choose checking or savings.",
	"business.entity_type": "Choose an entity type from the list.",
}

// tagMessage words the failure of one struct-tag rule on a field. value is the trimmed text;
// only the routing number (public bank data) is ever quoted back.
func tagMessage(field, tag, param, value string) string {
	info, _ := lookupField(field)
	switch {
	case tag == "oneof" && choiceWords[field] != "":
		return choiceWords[field]
	case tag == validation.TagABAChecksum:
		digits, _ := validation.Digits(value)
		return fmt.Sprintf("Routing number %s fails the ABA checksum; check the digits.", digits)
	case tag == validation.TagDecimal && info.kind == kindPercent:
		return fmt.Sprintf("%s must be a percentage like 25 or 33.33.", info.label)
	}
	words, ok := tagWords[tag]
	if !ok {
		words = "%[1]s is not valid."
	}
	if !strings.Contains(words, "%") {
		return words // fixed words: no label to put in
	}
	return fmt.Sprintf(words, info.label, param)
}
