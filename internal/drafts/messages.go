package drafts

import (
	"fmt"

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

// tagMessage words the failure of one struct-tag rule on a field. value is the trimmed text;
// only the routing number (public bank data) is ever quoted back.
func tagMessage(field, tag, param, value string) string {
	info, _ := lookupField(field)
	label := info.label
	switch tag {
	case "max":
		return fmt.Sprintf("%s can be at most %s characters.", label, param)
	case "oneof":
		switch field {
		case "bank.account_type":
			return "Choose checking or savings."
		case "business.entity_type":
			return "Choose an entity type from the list."
		}
		return fmt.Sprintf("%s must be one of the choices offered.", label)
	case "email":
		return fmt.Sprintf("%s must be an address like name@example.com.", label)
	case validation.TagRoutingNumber:
		return "Routing number must be 9 digits."
	case validation.TagABAChecksum:
		digits, _ := validation.Digits(value)
		return fmt.Sprintf("Routing number %s fails the ABA checksum; check the digits.", digits)
	case validation.TagBankAccount:
		return "Account number must be 3 to 17 digits."
	case validation.TagSSNFormat:
		return "SSN must be 9 digits (###-##-####)."
	case validation.TagSSNIssued, validation.TagSSNOrITIN:
		return msgSSNNotIssued
	case validation.TagUSState:
		return fmt.Sprintf("%s must be a two-letter US state code, like CA.", label)
	case validation.TagZIP:
		return fmt.Sprintf("%s must be 5 digits, or ZIP+4 like 12345-6789.", label)
	case validation.TagPhone:
		return fmt.Sprintf("%s must be a US number of 10 digits, like (212) 555-0100, or an international number starting with +.", label)
	case validation.TagWebsite:
		return fmt.Sprintf("%s must be an address like https://example.com.", label)
	case validation.TagMCC:
		return fmt.Sprintf("%s must be 4 digits, like 5812.", label)
	case validation.TagNotNegative:
		return fmt.Sprintf("%s cannot be negative.", label)
	case validation.TagDecimal:
		if info.kind == kindPercent {
			return fmt.Sprintf("%s must be a percentage like 25 or 33.33.", label)
		}
		return fmt.Sprintf("%s must be an amount like 1234.50.", label)
	case validation.TagMaxTwoDecimals:
		return fmt.Sprintf("%s can have at most two decimal places.", label)
	case validation.TagMaxHundred:
		return fmt.Sprintf("%s can be at most 100%%.", label)
	case validation.TagWholeNumber:
		return fmt.Sprintf("%s must be a whole number, like 3.", label)
	case validation.TagISODate:
		return fmt.Sprintf("%s must be a real date written YYYY-MM-DD.", label)
	}
	return fmt.Sprintf("%s is not valid.", label)
}
