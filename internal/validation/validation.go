// Package validation holds the portal's reusable field rules: bank routing and account numbers,
// US tax identifiers, states, ZIP codes, phone numbers, web sites, amounts, percentages and dates.
//
// Every rule exists twice: as a plain function (IsABAChecksumValid, IsSSNIssued, ...) for code
// that checks one value or combines values, and as a validator/v10 tag registered by Register,
// for struct tags. The rules check well-formedness only; whether a field is required is the
// caller's decision (use "omitempty" before these tags on optional fields).
//
// Rules that have several ways to fail are split into several tags (for example "ssn_format"
// then "ssn_issued"), so that the tag that failed tells the caller which message to show.
// Rules accept the separators people commonly type (spaces and dashes in numbers, thousands
// commas in amounts); Digits and Hundredths give the normalized value.
package validation

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/go-playground/validator/v10"
)

// Tags registered on a validator by Register. Each applies to string fields.
const (
	// TagRoutingNumber: 9 digits, spaces and dashes allowed.
	TagRoutingNumber = "routing_number"
	// TagABAChecksum: a 9-digit routing number whose ABA checksum holds.
	TagABAChecksum = "aba_checksum"
	// TagBankAccount: 3 to 17 digits, spaces and dashes allowed.
	TagBankAccount = "bank_account"
	// TagSSNFormat: 9 digits, written 123-45-6789, 123 45 6789 or 123456789.
	TagSSNFormat = "ssn_format"
	// TagSSNIssued: an SSN the Social Security Administration can issue (see IsSSNIssued).
	TagSSNIssued = "ssn_issued"
	// TagSSNOrITIN: an issuable SSN, or an ITIN (see IsSSNOrITIN), where a person may give one.
	TagSSNOrITIN = "ssn_or_itin"
	// TagEINFormat: 9 digits, written 12-3456789 or 123456789.
	TagEINFormat = "ein_format"
	// TagEINPrefix: an EIN whose two-digit prefix the IRS issues (see IsEINPrefixIssued).
	TagEINPrefix = "ein_prefix"
	// TagUSState: a two-letter code of a US state, DC or an inhabited territory.
	TagUSState = "us_state"
	// TagZIP: a US ZIP code, 12345 or 12345-6789.
	TagZIP = "us_zip"
	// TagPhone: a US number of 10 digits in a common format, or an E.164 number.
	TagPhone = "phone"
	// TagWebsite: an http or https address; the scheme may be left out.
	TagWebsite = "website"
	// TagMCC: a merchant category code, 4 digits.
	TagMCC = "mcc"
	// TagNotNegative: fails only for a negative decimal number.
	TagNotNegative = "not_negative"
	// TagDecimal: a decimal number such as 1234.5, 1,234.50 or .5, optionally negative.
	TagDecimal = "decimal"
	// TagMaxTwoDecimals: a decimal number with at most two digits after the point.
	TagMaxTwoDecimals = "max_2dp"
	// TagMaxHundred: a decimal number no greater than 100.
	TagMaxHundred = "max_100"
	// TagWholeNumber: a non-negative whole number without separators.
	TagWholeNumber = "whole_number"
	// TagISODate: a real calendar date written YYYY-MM-DD.
	TagISODate = "iso_date"
)

// rules maps each tag to its plain function, so the tag and the function can never disagree.
func rules() map[string]func(string) bool {
	return map[string]func(string) bool{
		TagRoutingNumber:  IsRoutingNumberFormat,
		TagABAChecksum:    IsABAChecksumValid,
		TagBankAccount:    IsBankAccountNumber,
		TagSSNFormat:      IsSSNFormat,
		TagSSNIssued:      IsSSNIssued,
		TagSSNOrITIN:      IsSSNOrITIN,
		TagEINFormat:      IsEINFormat,
		TagEINPrefix:      IsEINPrefixIssued,
		TagUSState:        IsUSState,
		TagZIP:            IsZIP,
		TagPhone:          IsPhone,
		TagWebsite:        IsWebsite,
		TagMCC:            IsMCC,
		TagNotNegative:    IsNotNegative,
		TagDecimal:        IsDecimal,
		TagMaxTwoDecimals: HasAtMostTwoDecimals,
		TagMaxHundred:     IsAtMostHundred,
		TagWholeNumber:    IsWholeNumber,
		TagISODate:        IsISODate,
	}
}

// Register adds the portal's tags to v. Like every registration on a validator, it must run
// before v is used concurrently.
func Register(v *validator.Validate) error {
	for tag, rule := range rules() {
		fn := func(fl validator.FieldLevel) bool {
			f := fl.Field()
			if f.Kind() != reflect.String {
				// A rule for text put on a non-text field is a programming error; failing
				// makes it show up in the first test rather than pass silently.
				return false
			}
			return rule(strings.TrimSpace(f.String()))
		}
		if err := v.RegisterValidation(tag, fn); err != nil {
			return fmt.Errorf("validation: register %q: %w", tag, err)
		}
	}
	return nil
}

// New returns a validator with the portal's tags registered and with field names taken from
// `json` tags, so that a FieldError's Namespace reads like "Draft.business.tin" or
// "Draft.owners[0].ssn". Build one at start-up (or once per package) and share it: a
// validator caches struct metadata and is safe for concurrent use.
func New() (*validator.Validate, error) {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			return ""
		}
		if name == "" {
			return f.Name
		}
		return name
	})
	if err := Register(v); err != nil {
		return nil, err
	}
	return v, nil
}
