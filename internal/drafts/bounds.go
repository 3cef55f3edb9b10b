package drafts

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/payportal/portal/internal/validation"
)

// The table of bounds: how long each field of a draft may be and, for numbers and dates,
// the range the portal and the processor accept. The specification publishes none, so these
// are ours, chosen as a processor's boarding forms choose them; the sandbox's area A
// validation (internal/sandbox/accounts/bounds.go) mirrors them field for field, and a test
// in internal/submission sends each bound and one step past it to the sandbox. Validate
// checks every typed value against its line before anything else, so no value of unbounded
// length, no invalid UTF-8 and no control character ever reaches the database.
//
// Lengths count characters (Unicode code points). Numbers are checked once they are
// well-formed: whole years in units, money in dollars with cents, percentages 0 to 100.

// numberKind says how a bounded number is written.
type numberKind int

const (
	notNumber numberKind = iota
	wholeNumber
	// hundredths: money and percentages, with up to two decimals (validation.Hundredths).
	hundredths
)

// bound is one line of the table.
type bound struct {
	maxLen    int  // characters
	multiline bool // a textarea: line breaks and tabs allowed
	number    numberKind
	min, max  int64 // in units (whole numbers) or hundredths (money, percentages)
}

// Money bounds, in hundredths: a monthly card volume under a billion dollars and tickets
// under ten million are what a small-merchant processor boards; more goes to underwriting.
const (
	maxMonthlyVolume = 999_999_999_99
	maxTicket        = 9_999_999_99
	maxYears         = 200
)

// Length bounds shared by several fields.
const (
	lenName    = 100
	lenLegal   = 200
	lenLine    = 100
	lenCity    = 60
	lenEmail   = 254 // RFC 5321's path limit
	lenPhone   = 25  // 15 digits of E.164 with the separators people type
	lenDigits  = 25  // tax ids and bank numbers with separators
	lenWebsite = 255
	lenCode    = 10 // state, ZIP, MCC, entity and account types, dates
)

// boundTable maps each field pattern to its bound. Every text leaf of Draft has a line (a
// test walks Draft to make sure).
var boundTable = map[string]bound{
	"business.legal_name":          {maxLen: lenLegal},
	"business.dba":                 {maxLen: lenLegal},
	"business.entity_type":         {maxLen: 20},
	FieldBusinessTIN:               {maxLen: lenDigits},
	"business.incorporation_date":  {maxLen: lenCode},
	"business.incorporation_state": {maxLen: lenCode},
	"business.address.line1":       {maxLen: lenLine},
	"business.address.line2":       {maxLen: lenLine},
	"business.address.city":        {maxLen: lenCity},
	"business.address.state":       {maxLen: lenCode},
	"business.address.postal_code": {maxLen: lenCode},
	"business.phone":               {maxLen: lenPhone},
	"business.email":               {maxLen: lenEmail},
	"business.website":             {maxLen: lenWebsite},
	"business.goods_and_services":  {maxLen: 500},
	"business.mcc":                 {maxLen: lenCode},
	"business.years_in_business":   {maxLen: lenCode, number: wholeNumber, max: maxYears},
	"business.monthly_volume":      {maxLen: 20, number: hundredths, max: maxMonthlyVolume},
	"business.average_ticket":      {maxLen: 20, number: hundredths, max: maxTicket},
	"business.highest_ticket":      {maxLen: 20, number: hundredths, max: maxTicket},
	"business.card_present_pct":    {maxLen: lenCode, number: hundredths, max: 100_00},
	"business.keyed_pct":           {maxLen: lenCode, number: hundredths, max: 100_00},
	"business.ecommerce_pct":       {maxLen: lenCode, number: hundredths, max: 100_00},
	"owners.*.id":                  {maxLen: 64},
	"owners.*.first_name":          {maxLen: lenName},
	"owners.*.middle_name":         {maxLen: lenName},
	"owners.*.last_name":           {maxLen: lenName},
	"owners.*.title":               {maxLen: lenName},
	"owners.*.ownership_pct":       {maxLen: lenCode, number: hundredths, max: 100_00},
	"owners.*.date_of_birth":       {maxLen: lenCode},
	"owners.*.ssn":                 {maxLen: lenDigits},
	"owners.*.address.line1":       {maxLen: lenLine},
	"owners.*.address.line2":       {maxLen: lenLine},
	"owners.*.address.city":        {maxLen: lenCity},
	"owners.*.address.state":       {maxLen: lenCode},
	"owners.*.address.postal_code": {maxLen: lenCode},
	"owners.*.phone":               {maxLen: lenPhone},
	"owners.*.email":               {maxLen: lenEmail},
	"bank.holder_name":             {maxLen: lenName},
	"bank.routing_number":          {maxLen: lenDigits},
	"bank.account_number":          {maxLen: lenDigits},
	"bank.account_type":            {maxLen: lenCode},
	"contact.name":                 {maxLen: lenName},
	"contact.email":                {maxLen: lenEmail},
	"contact.phone":                {maxLen: lenPhone},
	FieldNotes:                     {maxLen: 20000, multiline: true},
}

// Dates: the ranges the processor accepts, checked in validate_rules.go.
const (
	// EarliestIncorporationYear: no business still trading was formed before it.
	EarliestIncorporationYear = 1800
	// MinOwnerAge and MaxOwnerAge bound an owner's age on the day of the check.
	MinOwnerAge = 18
	MaxOwnerAge = 120
)

// lookupBound returns the bound of a canonical field name.
func lookupBound(field string) (bound, bool) {
	pattern, _ := splitField(field)
	b, ok := boundTable[pattern]
	return b, ok
}

// checkBounds checks every text field of d (trimmed) against its bound: valid text, one line
// unless a textarea, not too long. It returns the fields it refused, which the other rules
// then leave alone.
func (d *Draft) checkBounds(errs FieldErrors) map[string]bool {
	refused := map[string]bool{}
	for _, name := range d.FieldNames() {
		v, err := d.Get(name)
		if err != nil || v == "" {
			continue
		}
		b, ok := lookupBound(name)
		if !ok {
			b = bound{maxLen: lenName} // a field the table forgot is still bounded; a test catches it
		}
		label := FieldLabel(name)
		if p := validation.CheckText(v, b.multiline); p != validation.TextOK {
			errs.Add(name, validation.TextMessage(label, p))
			refused[name] = true
		} else if validation.TooLong(v, b.maxLen) {
			errs.Add(name, validation.LengthMessage(label, b.maxLen))
			refused[name] = true
		}
	}
	return refused
}

// checkRanges refuses well-formed numbers outside their range. Fields with a message
// already (a malformed number) keep it.
func (d *Draft) checkRanges(errs FieldErrors) {
	for _, name := range d.FieldNames() {
		b, ok := lookupBound(name)
		if !ok || b.number == notNumber {
			continue
		}
		if _, done := errs[name]; done {
			continue
		}
		v, _ := d.Get(name)
		if v == "" {
			continue
		}
		if !b.inRange(v) {
			errs.Add(name, b.rangeMessage(FieldLabel(name)))
		}
	}
}

// inRange reports whether a well-formed number lies within the bound. A number too long to
// parse is out of range (a 23-digit count of years is not a number of years).
func (b bound) inRange(v string) bool {
	switch b.number {
	case wholeNumber:
		digits := strings.TrimLeft(v, "0")
		if len(digits) > 18 {
			return false
		}
		n, err := strconv.ParseInt("0"+digits, 10, 64)
		return err == nil && n >= b.min && n <= b.max
	case hundredths:
		n, ok := validation.Hundredths(v)
		return ok && n >= b.min && n <= b.max
	}
	return true
}

// rangeMessage words the range of a number.
func (b bound) rangeMessage(label string) string {
	if b.number == wholeNumber {
		return fmt.Sprintf("%s must be between %d and %d.", label, b.min, b.max)
	}
	if b.max == 100_00 {
		return fmt.Sprintf("%s can be at most 100%%.", label)
	}
	return fmt.Sprintf("%s can be at most %s.", label, formatMoney(b.max))
}

// FormatMoney writes hundredths as dollars with thousands separators, for people:
// 6200000 is "62,000.00".
func FormatMoney(n int64) string { return formatMoney(n) }

// formatMoney writes hundredths as dollars with thousands separators: 99999999999 is
// "999,999,999.99".
func formatMoney(n int64) string {
	whole := strconv.FormatInt(n/100, 10)
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return fmt.Sprintf("%s.%02d", b.String(), n%100)
}

// Bound describes one line of the table of bounds, for the documentation and for the test
// that holds the sandbox to the same bounds.
type Bound struct {
	// Field is the pattern of the field, "*" for an owner's position; SentAs the upstream
	// field, "" when it is not sent.
	Field, SentAs string
	// MaxLength is the most characters it may hold.
	MaxLength int
	// Multiline fields may hold line breaks.
	Multiline bool
	// Whole and Money say how Min and Max read: whole units, or hundredths (dollars and
	// cents, or percent); both false when the field is not a number.
	Whole, Hundredths bool
	Min, Max          int64
}

// Bounds lists the table in form order.
func Bounds() []Bound {
	var out []Bound
	for _, f := range fieldTable {
		b, ok := boundTable[f.pattern]
		if !ok {
			continue
		}
		out = append(out, Bound{
			Field: f.pattern, SentAs: f.sent, MaxLength: b.maxLen, Multiline: b.multiline,
			Whole: b.number == wholeNumber, Hundredths: b.number == hundredths, Min: b.min, Max: b.max,
		})
	}
	return out
}
