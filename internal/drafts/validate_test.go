package drafts

import (
	"fmt"
	"maps"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/apperr"
)

func TestValidateEmptyAndCompleteDrafts(t *testing.T) {
	var empty Draft
	if errs := empty.Validate(now); errs != nil {
		t.Errorf("an empty draft must save without errors, got %v", errs)
	}
	for _, e := range EntityTypes() {
		d := completeDraft(e)
		if errs := d.Validate(now); errs != nil {
			t.Errorf("%s: complete draft has errors %v", e, errs)
		}
	}
}

// TestValidateMessages holds the exact message of every rule. Each case edits a complete
// draft; want is the whole error map.
func TestValidateMessages(t *testing.T) {
	tests := []struct {
		name string
		edit func(d *Draft)
		want FieldErrors
	}{
		// Lengths and choices.
		{"legal name too long", func(d *Draft) { d.Business.LegalName = strings.Repeat("a", 201) },
			FieldErrors{"business.legal_name": "Legal name can be at most 200 characters."}},
		{"notes too long", func(d *Draft) { d.Notes = strings.Repeat("n", 20001) },
			FieldErrors{"notes": "Notes can be at most 20000 characters."}},
		{"owner city too long", func(d *Draft) { d.Owners[0].Address.City = strings.Repeat("c", 61) },
			FieldErrors{"owners.0.address.city": "City can be at most 60 characters."}},
		{"entity type", func(d *Draft) { d.Business.EntityType = "trust" },
			FieldErrors{"business.entity_type": "Choose an entity type from the list."}},
		{"account type", func(d *Draft) { d.Bank.AccountType = "brokerage" },
			FieldErrors{"bank.account_type": "Choose checking or savings."}},

		// Bank.
		{"routing number length", func(d *Draft) { d.Bank.RoutingNumber = "01140153" },
			FieldErrors{"bank.routing_number": "Routing number must be 9 digits."}},
		{"routing number letters", func(d *Draft) { d.Bank.RoutingNumber = "01140153X" },
			FieldErrors{"bank.routing_number": "Routing number must be 9 digits."}},
		{"routing checksum", func(d *Draft) { d.Bank.RoutingNumber = "123456789" },
			FieldErrors{"bank.routing_number": "Routing number 123456789 fails the ABA checksum; check the digits."}},
		{"routing checksum with separators", func(d *Draft) { d.Bank.RoutingNumber = "0114-0153-4" },
			FieldErrors{"bank.routing_number": "Routing number 011401534 fails the ABA checksum; check the digits."}},
		{"account too short", func(d *Draft) { d.Bank.AccountNumber = "12" },
			FieldErrors{"bank.account_number": "Account number must be 3 to 17 digits."}},
		{"account too long", func(d *Draft) { d.Bank.AccountNumber = "123456789012345678" },
			FieldErrors{"bank.account_number": "Account number must be 3 to 17 digits."}},

		// SSN.
		{"ssn format", func(d *Draft) { d.Owners[0].SSN = "123-45-678" },
			FieldErrors{"owners.0.ssn": "SSN must be 9 digits (###-##-####)."}},
		{"ssn area 000", func(d *Draft) { d.Owners[0].SSN = "000-45-6789" },
			FieldErrors{"owners.0.ssn": msgSSNNotIssued}},
		{"ssn area 666", func(d *Draft) { d.Owners[0].SSN = "666456789" },
			FieldErrors{"owners.0.ssn": msgSSNNotIssued}},
		{"ssn area 9xx", func(d *Draft) { d.Owners[0].SSN = "912-45-6789" },
			FieldErrors{"owners.0.ssn": msgSSNNotIssued}},
		{"ssn group 00", func(d *Draft) { d.Owners[0].SSN = "123-00-6789" },
			FieldErrors{"owners.0.ssn": msgSSNNotIssued}},
		{"ssn serial 0000", func(d *Draft) { d.Owners[0].SSN = "123 45 0000" },
			FieldErrors{"owners.0.ssn": msgSSNNotIssued}},

		// TIN.
		{"tin format", func(d *Draft) { d.Business.TIN = "12-345678" },
			FieldErrors{"business.tin": "TIN must be an EIN of 9 digits, like 12-3456789."}},
		{"tin prefix 00 (all zero)", func(d *Draft) { d.Business.TIN = "000000000" },
			FieldErrors{"business.tin": "This is not a valid EIN: the IRS issues no EIN starting with these two digits."}},
		{"tin prefix 07", func(d *Draft) { d.Business.TIN = "07-1234567" },
			FieldErrors{"business.tin": msgTINPrefix}},
		{"tin is an SSN for an LLC", func(d *Draft) { d.Business.TIN = "234-56-6789" },
			FieldErrors{"business.tin": "Only a sole proprietor can use an SSN as TIN; enter the business's EIN."}},
		{"sole proprietor: SSN accepted", func(d *Draft) {
			d.Business.EntityType = EntitySoleProprietor
			d.Business.IncorporationDate, d.Business.IncorporationState = "", ""
			d.Business.TIN = "078-05-1121"
		}, nil},
		{"sole proprietor: 9 digits valid as SSN only", func(d *Draft) {
			d.Business.EntityType = EntitySoleProprietor
			d.Business.TIN = "078051121"
		}, nil},
		{"sole proprietor: ITIN accepted", func(d *Draft) {
			d.Business.EntityType = EntitySoleProprietor
			d.Business.TIN = "912-70-1234"
		}, nil},
		{"sole proprietor: the wallet's advertised SSN", func(d *Draft) {
			d.Business.EntityType = EntitySoleProprietor
			d.Business.TIN = "078-05-1120"
		}, FieldErrors{"business.tin": "This number was never issued as an SSN or ITIN; check the digits."}},
		{"owner: the example SSN", func(d *Draft) { d.Owners[0].SSN = "123-45-6789" },
			FieldErrors{"owners.0.ssn": "This number was never issued as an SSN or ITIN; check the digits."}},
		{"owner: the pamphlet's SSN", func(d *Draft) { d.Owners[0].SSN = "219-09-9999" },
			FieldErrors{"owners.0.ssn": "This number was never issued as an SSN or ITIN; check the digits."}},
		{"owner: an ITIN", func(d *Draft) { d.Owners[0].SSN = "912-88-1234" }, nil},
		{"owner: 9XX outside the ITIN ranges", func(d *Draft) { d.Owners[0].SSN = "912-45-1234" },
			FieldErrors{"owners.0.ssn": "This number was never issued as an SSN or ITIN; check the digits."}},
		{"sole proprietor: bad format", func(d *Draft) {
			d.Business.EntityType = EntitySoleProprietor
			d.Business.TIN = "12345"
		}, FieldErrors{"business.tin": "TIN must be an EIN like 12-3456789 or, for a sole proprietor, the owner's SSN or ITIN (9 digits, ###-##-####)."}},
		{"sole proprietor: 9 digits neither", func(d *Draft) {
			d.Business.EntityType = EntitySoleProprietor
			d.Business.TIN = "000000000"
		}, FieldErrors{"business.tin": "This number is neither a valid EIN nor a valid SSN or ITIN; check the digits."}},
		{"sole proprietor: SSN not issued", func(d *Draft) {
			d.Business.EntityType = EntitySoleProprietor
			d.Business.TIN = "666-12-3456"
		}, FieldErrors{"business.tin": msgSSNNotIssued}},
		{"sole proprietor: EIN with bad prefix", func(d *Draft) {
			d.Business.EntityType = EntitySoleProprietor
			d.Business.TIN = "96-1234567"
		}, FieldErrors{"business.tin": msgTINPrefix}},
		{"entity not chosen: SSN accepted for now", func(d *Draft) {
			d.Business.EntityType = ""
			d.Business.TIN = "234-56-6789"
		}, nil},

		// Addresses.
		{"state code", func(d *Draft) { d.Business.Address.State = "XX" },
			FieldErrors{"business.address.state": "State must be a two-letter US state code, like CA."}},
		{"incorporation state", func(d *Draft) { d.Business.IncorporationState = "Calif" },
			FieldErrors{"business.incorporation_state": "Incorporation state must be a two-letter US state code, like CA."}},
		{"territory accepted", func(d *Draft) { d.Owners[0].Address.State = "pr" }, nil},
		{"zip", func(d *Draft) { d.Owners[0].Address.PostalCode = "9460" },
			FieldErrors{"owners.0.address.postal_code": "ZIP code must be 5 digits, or ZIP+4 like 12345-6789."}},
		{"zip+4 accepted", func(d *Draft) { d.Business.Address.PostalCode = "94105-1234" }, nil},

		// Contact details.
		{"business email", func(d *Draft) { d.Business.Email = "hello@" },
			FieldErrors{"business.email": "Business e-mail must be an address like name@example.com."}},
		{"contact email", func(d *Draft) { d.Contact.Email = "jane at example.com" },
			FieldErrors{"contact.email": "Contact e-mail must be an address like name@example.com."}},
		{"owner phone", func(d *Draft) { d.Owners[0].Phone = "555-0199" },
			FieldErrors{"owners.0.phone": "Phone must be a US number of 10 digits, like (212) 555-0100, or an international number starting with +."}},
		{"business phone", func(d *Draft) { d.Business.Phone = "(115) 555-0100" },
			FieldErrors{"business.phone": "Business phone must be a US number of 10 digits, like (212) 555-0100, or an international number starting with +."}},
		{"e164 accepted", func(d *Draft) { d.Contact.Phone = "+44 20 7946 0958" }, nil},
		{"website", func(d *Draft) { d.Business.Website = "bluefern" },
			FieldErrors{"business.website": "Website must be an address like https://example.com."}},
		{"website without scheme accepted", func(d *Draft) { d.Business.Website = "bluefern.example/menu" }, nil},

		// Codes and numbers.
		{"mcc", func(d *Draft) { d.Business.MCC = "581" },
			FieldErrors{"business.mcc": "MCC must be 4 digits, like 5812."}},
		{"years not whole", func(d *Draft) { d.Business.YearsInBusiness = "2.5" },
			FieldErrors{"business.years_in_business": "Years in business must be a whole number, like 3."}},
		{"years negative", func(d *Draft) { d.Business.YearsInBusiness = "-1" },
			FieldErrors{"business.years_in_business": "Years in business cannot be negative."}},
		{"years at the bound", func(d *Draft) { d.Business.YearsInBusiness = "200" }, nil},
		{"years past the bound", func(d *Draft) { d.Business.YearsInBusiness = "201" },
			FieldErrors{"business.years_in_business": "Years in business must be between 0 and 200."}},
		{"years of 23 digits", func(d *Draft) { d.Business.YearsInBusiness = "12345678901234567890123" },
			FieldErrors{"business.years_in_business": "Years in business can be at most 10 characters."}},
		{"years of 10 digits", func(d *Draft) { d.Business.YearsInBusiness = "0000000201" },
			FieldErrors{"business.years_in_business": "Years in business must be between 0 and 200."}},
		{"volume at the bound", func(d *Draft) { d.Business.MonthlyVolume = "999,999,999.99" }, nil},
		{"volume past the bound", func(d *Draft) { d.Business.MonthlyVolume = "1000000000" },
			FieldErrors{"business.monthly_volume": "Monthly card volume can be at most 999,999,999.99."}},
		{"volume of 400 nines", func(d *Draft) { d.Business.MonthlyVolume = strings.Repeat("9", 400) },
			FieldErrors{"business.monthly_volume": "Monthly card volume can be at most 20 characters."}},
		{"volume of 19 nines", func(d *Draft) { d.Business.MonthlyVolume = strings.Repeat("9", 19) },
			FieldErrors{"business.monthly_volume": "Monthly card volume can be at most 999,999,999.99."}},
		{"ticket past the bound", func(d *Draft) { d.Business.HighestTicket = "10000000.00" },
			FieldErrors{"business.highest_ticket": "Highest ticket can be at most 9,999,999.99."}},

		// Text that is not text.
		{"NUL in a name", func(d *Draft) { d.Business.LegalName = "Blue\x00Fern" },
			FieldErrors{"business.legal_name": "Legal name holds an invisible control character (such as a NUL byte); remove it."}},
		{"invalid UTF-8 in a name", func(d *Draft) { d.Contact.Name = "Jane \xff\xfe Doe" },
			FieldErrors{"contact.name": "Contact name holds characters that are not valid text; type it again."}},
		{"line break in a name", func(d *Draft) { d.Contact.Name = "Jane\r\nBcc: x@example.com" },
			FieldErrors{"contact.name": "Contact name must be one line, without line breaks or tabs."}},
		{"line breaks in notes", func(d *Draft) { d.Notes = "line one\nline two\ttabbed" }, nil},
		{"NUL in notes", func(d *Draft) { d.Notes = "a\x00b" },
			FieldErrors{"notes": "Notes holds an invisible control character (such as a NUL byte); remove it."}},
		{"NUL in an owner's SSN", func(d *Draft) { d.Owners[0].SSN = "123-45-\x006789" },
			FieldErrors{"owners.0.ssn": "SSN holds an invisible control character (such as a NUL byte); remove it."}},
		{"legal name at the bound", func(d *Draft) { d.Business.LegalName = strings.Repeat("é", 200) }, nil},
		{"legal name past the bound", func(d *Draft) { d.Business.LegalName = strings.Repeat("é", 201) },
			FieldErrors{"business.legal_name": "Legal name can be at most 200 characters."}},
		{"a megabyte of e-mail", func(d *Draft) { d.Contact.Email = strings.Repeat("a", 1<<20) + "@example.com" },
			FieldErrors{"contact.email": "Contact e-mail can be at most 254 characters."}},
		{"amount negative", func(d *Draft) { d.Business.MonthlyVolume = "-100" },
			FieldErrors{"business.monthly_volume": "Monthly card volume cannot be negative."}},
		{"amount not a number", func(d *Draft) { d.Business.AverageTicket = "12 dollars" },
			FieldErrors{"business.average_ticket": "Average ticket must be an amount like 1234.50."}},
		{"amount three decimals", func(d *Draft) { d.Business.AverageTicket = "12.505" },
			FieldErrors{"business.average_ticket": "Average ticket can have at most two decimal places."}},
		{"amount with thousands commas accepted", func(d *Draft) { d.Business.MonthlyVolume = "45,000.50" }, nil},
		{"amount with a dollar sign accepted", func(d *Draft) { d.Business.AverageTicket = "$12" }, nil},
		{"highest below average", func(d *Draft) { d.Business.HighestTicket = "12.49" },
			FieldErrors{"business.highest_ticket": "Highest ticket cannot be less than the average ticket."}},
		{"highest equal to average accepted", func(d *Draft) { d.Business.HighestTicket = "12.50" }, nil},

		// Percentages.
		{"ownership negative", func(d *Draft) { d.Owners[0].OwnershipPct = "-5" },
			FieldErrors{"owners.0.ownership_pct": "Ownership cannot be negative."}},
		{"ownership not a number", func(d *Draft) { d.Owners[0].OwnershipPct = "half" },
			FieldErrors{"owners.0.ownership_pct": "Ownership must be a percentage like 25 or 33.33."}},
		{"ownership over 100", func(d *Draft) { d.Owners[0].OwnershipPct = "100.01" },
			FieldErrors{"owners.0.ownership_pct": "Ownership can be at most 100%."}},
		{"ownership three decimals", func(d *Draft) { d.Owners[0].OwnershipPct = "33.333" },
			FieldErrors{"owners.0.ownership_pct": "Ownership can have at most two decimal places."}},
		{"ownership total over 100", func(d *Draft) { d.Owners = append(d.Owners, secondOwner()) },
			FieldErrors{"owners": "Ownership adds up to 140%; the total can be at most 100%."}},
		{"ownership total with decimals", func(d *Draft) {
			d.Owners[0].OwnershipPct = "60.5"
			d.Owners = append(d.Owners, secondOwner())
		}, FieldErrors{"owners": "Ownership adds up to 100.5%; the total can be at most 100%."}},
		{"ownership total exactly 100", func(d *Draft) {
			d.Owners[0].OwnershipPct = "60"
			d.Owners = append(d.Owners, secondOwner())
		}, nil},
		{"card share over 100", func(d *Draft) { d.Business.KeyedPct = "101" },
			FieldErrors{"business.keyed_pct": "Keyed share can be at most 100%."}},
		{"card mix short of 100", func(d *Draft) { d.Business.EcommercePct = "5" },
			FieldErrors{"business.card_mix": "Card-present, keyed and e-commerce shares add up to 90%; they must add up to 100%."}},
		{"card mix thirds", func(d *Draft) {
			d.Business.CardPresentPct, d.Business.KeyedPct, d.Business.EcommercePct = "33.33", "33.33", "33.34"
		}, nil},
		{"card mix partial over 100", func(d *Draft) {
			d.Business.CardPresentPct, d.Business.KeyedPct, d.Business.EcommercePct = "80", "", "30.25"
		}, FieldErrors{"business.card_mix": "Card-present, keyed and e-commerce shares add up to 110.25%; they can add up to at most 100%."}},
		{"card mix partial under 100 is fine on save", func(d *Draft) {
			d.Business.CardPresentPct, d.Business.KeyedPct, d.Business.EcommercePct = "80", "", ""
		}, nil},

		// Control person.
		{"two control persons", func(d *Draft) {
			d.Owners[0].OwnershipPct = "60"
			o := secondOwner()
			o.IsControlPerson = true
			d.Owners = append(d.Owners, o)
		}, FieldErrors{
			"owners.0.is_control_person": "Only one owner can be the control person; 2 are marked.",
			"owners.1.is_control_person": "Only one owner can be the control person; 2 are marked.",
		}},
		{"no control person is not a save error", func(d *Draft) { d.Owners[0].IsControlPerson = false }, nil},
		{"too many owners", func(d *Draft) {
			d.Owners[0].OwnershipPct = "1"
			for range MaxOwners {
				o := secondOwner()
				o.OwnershipPct = "1"
				d.Owners = append(d.Owners, o)
			}
		}, FieldErrors{"owners": "An application can list at most 10 owners."}},

		// Dates.
		{"date format", func(d *Draft) { d.Business.IncorporationDate = "06/01/2019" },
			FieldErrors{"business.incorporation_date": "Incorporation date must be a real date written YYYY-MM-DD."}},
		{"date not on the calendar", func(d *Draft) { d.Owners[0].DateOfBirth = "1981-02-29" },
			FieldErrors{"owners.0.date_of_birth": "Date of birth must be a real date written YYYY-MM-DD."}},
		{"incorporated today accepted", func(d *Draft) { d.Business.IncorporationDate = "2026-03-15" }, nil},
		{"incorporated tomorrow", func(d *Draft) { d.Business.IncorporationDate = "2026-03-16" },
			FieldErrors{"business.incorporation_date": "Incorporation date cannot be in the future."}},
		{"incorporated before 1800", func(d *Draft) { d.Business.IncorporationDate = "1799-12-31" },
			FieldErrors{"business.incorporation_date": "Incorporation date must be in 1800 or later."}},
		{"born in the future", func(d *Draft) { d.Owners[0].DateOfBirth = "2026-03-16" },
			FieldErrors{"owners.0.date_of_birth": "Date of birth cannot be in the future."}},
		{"born more than 120 years ago", func(d *Draft) { d.Owners[0].DateOfBirth = "1906-03-14" },
			FieldErrors{"owners.0.date_of_birth": "Date of birth must be within the last 120 years."}},
		{"born 120 years ago", func(d *Draft) { d.Owners[0].DateOfBirth = "1906-03-15" }, nil},
		{"18 today", func(d *Draft) { d.Owners[0].DateOfBirth = "2008-03-15" }, nil},
		{"18 tomorrow", func(d *Draft) { d.Owners[0].DateOfBirth = "2008-03-16" },
			FieldErrors{"owners.0.date_of_birth": "Owners must be at least 18 years old; this date of birth makes them 17."}},
		{"born today", func(d *Draft) { d.Owners[0].DateOfBirth = "2026-03-15" },
			FieldErrors{"owners.0.date_of_birth": "Owners must be at least 18 years old; this date of birth makes them 0."}},

		// Second owner's fields are named by index.
		{"second owner's fields", func(d *Draft) {
			d.Owners[0].OwnershipPct = "60"
			o := secondOwner()
			o.SSN, o.Email = "12345678", "john@"
			d.Owners = append(d.Owners, o)
		}, FieldErrors{
			"owners.1.ssn":   "SSN must be 9 digits (###-##-####).",
			"owners.1.email": "E-mail must be an address like name@example.com.",
		}},

		// Spaces around values are ignored.
		{"surrounding spaces", func(d *Draft) {
			d.Bank.RoutingNumber = " 011401533 "
			d.Business.Address.State = " CA"
			d.Owners[0].DateOfBirth = "1980-04-02 "
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := completeDraft(EntityLLC)
			tt.edit(&d)
			got := d.Validate(now)
			if !maps.Equal(got, tt.want) {
				t.Errorf("Validate() =\n  %#v\nwant\n  %#v", got, tt.want)
			}
		})
	}
}

func TestLeapDayBirthday(t *testing.T) {
	d := completeDraft(EntityLLC)
	d.Owners[0].DateOfBirth = "2008-02-29"
	feb28 := time.Date(2026, time.February, 28, 12, 0, 0, 0, time.UTC)
	if got := d.Validate(feb28); got["owners.0.date_of_birth"] != fmt.Sprintf(msgUnderage, 17) {
		t.Errorf("someone born on 29 February 2008 is not 18 on 28 February 2026: %v", got)
	}
	if got := d.Validate(feb28.AddDate(0, 0, 1)); got != nil {
		t.Errorf("on 1 March 2026 they are 18: %v", got)
	}
}

func TestTodayFollowsTheClockZone(t *testing.T) {
	d := completeDraft(EntityLLC)
	d.Business.IncorporationDate = "2026-03-15"
	// 15 March 00:30 UTC is still 14 March in New York.
	early := time.Date(2026, time.March, 15, 0, 30, 0, 0, time.UTC)
	ny := mustLoad(t, "America/New_York")
	if got := d.Validate(early.In(ny)); got["business.incorporation_date"] != msgIncorporationFut {
		t.Errorf("on 14 March in New York, 15 March is in the future: %v", got)
	}
	if got := d.Validate(early); got != nil {
		t.Errorf("in UTC it is 15 March already: %v", got)
	}
}

func TestValidateNeverEchoesPersonalNumbers(t *testing.T) {
	d := completeDraft(EntityLLC)
	d.Business.TIN = "07-1234567"
	d.Owners[0].SSN = "666-12-3456"
	d.Bank.AccountNumber = "98765432101234567890"
	for field, msg := range d.Validate(now) {
		for _, secret := range []string{"1234567", "3456", "98765"} {
			if strings.Contains(msg, secret) {
				t.Errorf("%s: message %q echoes personal data", field, msg)
			}
		}
	}
}

func TestValidateKeepsTypedValues(t *testing.T) {
	d := completeDraft(EntityLLC)
	d.Bank.RoutingNumber = " 0114-0153-3 "
	d.Business.MonthlyVolume = "45,000"
	before := d
	before.Owners = append([]Owner(nil), d.Owners...)
	d.Validate(now)
	if d.Bank.RoutingNumber != " 0114-0153-3 " || d.Business.MonthlyVolume != "45,000" || d.Owners[0] != before.Owners[0] {
		t.Error("Validate modified the draft")
	}
}

func TestFieldErrorsHelpers(t *testing.T) {
	var none FieldErrors
	if none.Err() != nil {
		t.Error("nil FieldErrors.Err() must be nil")
	}
	errs := FieldErrors{
		"bank.routing_number":        "r",
		"owners.1.ssn":               "s1",
		"owners.0.ssn":               "s0",
		"owners":                     "o",
		"business.tin":               "t",
		"business.card_mix":          "c",
		"owners.0.address.state":     "a",
		"owners.0.is_control_person": "p",
		"business.legal_name":        "l",
	}
	var got []string
	for _, fe := range Sorted(errs) {
		got = append(got, fe.Field)
	}
	want := "business.legal_name business.tin business.card_mix owners owners.0.ssn owners.0.address.state owners.0.is_control_person owners.1.ssn bank.routing_number"
	if strings.Join(got, " ") != want {
		t.Errorf("Sorted() = %v\nwant %s", got, want)
	}
	err := errs.Err()
	back, ok := apperr.FieldsOf(err)
	if !ok || len(back) != len(errs) {
		t.Fatalf("FieldsOf did not recover FieldErrors from %v", err)
	}
	if !strings.HasPrefix(err.Error(), "invalid input: bank.routing_number, business.card_mix, business.legal_name, business.tin") {
		t.Errorf("Error() = %q", err.Error())
	}
}

// TestValidateConcurrently runs the shared validator from many goroutines, for -race.
func TestValidateConcurrently(t *testing.T) {
	done := make(chan FieldErrors)
	for i := range 8 {
		go func() {
			d := completeDraft(EntityTypes()[i%len(EntityTypes())])
			d.Bank.RoutingNumber = "123456789"
			done <- d.Validate(now)
		}()
	}
	for range 8 {
		if errs := <-done; len(errs) != 1 {
			t.Errorf("got %v", errs)
		}
	}
}

// TestEveryTagHasAMessage walks the struct tags of Draft so that a rule added to a field
// cannot fall back to the generic message.
func TestEveryTagHasAMessage(t *testing.T) {
	var walk func(rt reflect.Type)
	walk = func(rt reflect.Type) {
		for i := range rt.NumField() {
			f := rt.Field(i)
			for _, tag := range strings.Split(f.Tag.Get("validate"), ",") {
				name, param, _ := strings.Cut(tag, "=")
				if name == "" || name == "omitempty" || name == "dive" {
					continue
				}
				if msg := tagMessage("business.legal_name", name, param, ""); strings.HasSuffix(msg, "is not valid.") {
					t.Errorf("%s.%s: tag %q has no message", rt.Name(), f.Name, name)
				}
			}
			switch f.Type.Kind() {
			case reflect.Struct:
				walk(f.Type)
			case reflect.Slice:
				walk(f.Type.Elem())
			}
		}
	}
	walk(reflect.TypeOf(Draft{}))
}

// A deposit account left to the merchant is not checked: it is neither asked for nor
// sent. A value that cannot be stored is refused all the same.
func TestBankLeftToTheMerchantIsNotChecked(t *testing.T) {
	var d Draft
	d.Bank = Bank{FromMerchant: true, RoutingNumber: "123456789", AccountNumber: "12"}
	if errs := d.Validate(time.Now()); len(errs) != 0 {
		t.Errorf("left to the merchant: %v", errs)
	}
	d.Bank.HolderName = "Jane\x00"
	if errs := d.Validate(time.Now()); errs["bank.holder_name"] == "" {
		t.Errorf("a NUL byte left to the merchant passed: %v", errs)
	}
	d.Bank.FromMerchant, d.Bank.HolderName = false, ""
	if errs := d.Validate(time.Now()); errs["bank.routing_number"] == "" || errs["bank.account_number"] == "" {
		t.Errorf("the rep's own account is not checked: %v", errs)
	}
}
