package drafts

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-playground/validator/v10"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/validation"
)

// FieldErrors maps a canonical field name (see fields.go) to a message for the rep, shown
// beside the field and in the summary at the top of the page: the portal's one
// apperr.FieldErrors. Messages never contain an SSN, TIN or account number.
type FieldErrors = apperr.FieldErrors

// FieldError is one entry of FieldErrors.
type FieldError struct {
	Field   string
	Message string
}

// Sorted returns the errors in the order of the form, for the summary at the top of the page.
func Sorted(e FieldErrors) []FieldError {
	out := make([]FieldError, 0, len(e))
	for f, m := range e {
		out = append(out, FieldError{Field: f, Message: m})
	}
	slices.SortFunc(out, func(a, b FieldError) int {
		switch {
		case fieldLess(a.Field, b.Field):
			return -1
		case fieldLess(b.Field, a.Field):
			return 1
		}
		return strings.Compare(a.Field, b.Field)
	})
	return out
}

// draftValidator is built once: validator/v10 caches struct metadata per validator and is safe
// for concurrent use. It holds no request state; building it can only fail through a
// programming error, which the package tests catch.
var draftValidator = sync.OnceValue(func() *validator.Validate {
	v, err := validation.New()
	if err != nil {
		panic(err)
	}
	return v
})

// Validate checks a draft on save. It never modifies d, so the page can show every value as
// typed next to its message.
//
// Empty fields are not errors here (a draft may be partial; BuildChecklist reports what is
// missing). Whatever is filled in must be well-formed. Leading and trailing spaces are
// ignored. Every value is first held to its line of the table of bounds (bounds.go): valid
// UTF-8 without control characters, one line unless a textarea, at most so many characters,
// and numbers within their range. The rules, beyond the formats in the struct tags (see
// package validation):
//   - business.tin: an EIN with an issued prefix; a sole proprietor (or a draft whose entity
//     type is not chosen yet) may give an SSN or ITIN instead.
//   - owners' SSNs: an SSN the SSA can have issued (not 000, 666 or 9XX, no 00 group or
//     0000 serial, no number published in advertising, not 123-45-6789), or an ITIN (9XX
//     with the IRS's middle digits), which a person without an SSN gives.
//   - incorporation date: not in the future, not before 1800.
//   - owners' dates of birth: not in the future, at most 120 years ago, and at least 18
//     years old on now (someone born on 29 February turns 18 on 1 March in common years).
//   - ownership percentages add up to at most 100%; at most MaxOwners owners.
//   - more than one control person is an error; none is a checklist item instead, because a
//     rep fills owners in one at a time.
//   - the three card-mix percentages add up to exactly 100% once all three are given, and
//     never more than 100%.
//   - the highest ticket is not below the average ticket.
//
// now gives "today" as its calendar date in now's location; pass a time in the merchant's or
// the portal's time zone.
func (d *Draft) Validate(now time.Time) FieldErrors {
	t := d.trimmed()
	errs := FieldErrors{}
	// Text that is not text, or too long, is refused first and blanked in the copy, so the
	// other rules never run on it (nor a regular expression on a megabyte).
	unstorable := t.checkBounds(errs)
	for field := range unstorable {
		_ = t.Set(field, "") // checkBounds reports only fields of t
	}
	err := draftValidator().Struct(&t)
	var verrs validator.ValidationErrors
	switch {
	case errors.As(err, &verrs):
		for _, fe := range verrs {
			field := fieldFromNamespace(fe.Namespace())
			value := ""
			if rv := reflect.ValueOf(fe.Value()); rv.Kind() == reflect.String {
				value = rv.String() // also EntityType and AccountType
			}
			errs.Add(field, tagMessage(field, fe.Tag(), fe.Param(), value))
		}
	case err != nil:
		// Only a malformed struct tag gets here; the package tests would have caught it.
		panic(fmt.Sprintf("drafts: validating draft: %v", err))
	}
	t.checkRanges(errs)
	t.checkCrossField(today(now), errs)
	t.forgiveBankLeftToMerchant(errs, unstorable)
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// fieldFromNamespace turns validator's "Draft.owners[1].address.state" into the canonical
// "owners.1.address.state".
func fieldFromNamespace(ns string) string {
	_, rest, _ := strings.Cut(ns, ".")
	rest = strings.ReplaceAll(rest, "[", ".")
	return strings.ReplaceAll(rest, "]", "")
}

// trimmed returns a deep copy of d with spaces trimmed from both ends of every text field.
func (d *Draft) trimmed() Draft {
	t := *d
	t.Owners = slices.Clone(d.Owners)
	trimStrings(reflect.ValueOf(&t).Elem())
	t.tidy()
	return t
}

func trimStrings(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(strings.TrimSpace(v.String()))
	case reflect.Struct:
		for i := range v.NumField() {
			trimStrings(v.Field(i))
		}
	case reflect.Slice:
		for i := range v.Len() {
			trimStrings(v.Index(i))
		}
	}
}

// today is the calendar date of now in now's location, as midnight UTC like
// validation.ParseDate, so dates compare by day.
func today(now time.Time) time.Time {
	y, m, d := now.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// forgiveBankLeftToMerchant drops the deposit account's messages when it is left to the
// merchant: it is then neither asked for nor sent, and a value kept from before the box
// was ticked is no problem of this application, unless it cannot even be stored.
func (d *Draft) forgiveBankLeftToMerchant(errs FieldErrors, unstorable map[string]bool) {
	if !d.Bank.FromMerchant {
		return
	}
	for field := range errs {
		if SectionOf(field) == SectionBank && field != FieldBankFromMerchant && !unstorable[field] {
			delete(errs, field)
		}
	}
}
