package drafts

import (
	"reflect"
	"strings"

	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/validation"
)

// Normalize rewrites d into the form it is stored and sent upstream in: spaces trimmed from
// both ends of every text field; SSN, TIN, routing and account numbers as bare digits; state
// codes in upper case; amounts and percentages without thousands commas. A value that is not
// well-formed is only trimmed, so normalizing never loses what was typed and is safe on every
// save. Validate works on the typed values, so call Normalize after it, not before showing a
// form again.
func (d *Draft) Normalize() {
	trimStrings(reflect.ValueOf(d).Elem())
	d.tidy()
	b := &d.Business
	for _, s := range []*string{&b.Phone, &d.Contact.Phone} {
		*s = normalizePhone(*s)
	}
	normalizeDigits(&b.TIN, validation.IsEIN(b.TIN) || validation.IsSSNOrITIN(b.TIN))
	normalizeAddress(&b.Address)
	b.IncorporationState = upperIf(b.IncorporationState, validation.IsUSState)
	for _, s := range []*string{&b.MonthlyVolume, &b.AverageTicket, &b.HighestTicket} {
		normalizeAmount(s, validation.Hundredths)
	}
	for _, s := range []*string{&b.CardPresentPct, &b.KeyedPct, &b.EcommercePct} {
		normalizeAmount(s, percent)
	}
	for i := range d.Owners {
		o := &d.Owners[i]
		normalizeDigits(&o.SSN, validation.IsSSNOrITIN(o.SSN))
		normalizeAddress(&o.Address)
		normalizeAmount(&o.OwnershipPct, percent)
		o.Phone = normalizePhone(o.Phone)
	}
	normalizeDigits(&d.Bank.RoutingNumber, validation.IsRoutingNumberFormat(d.Bank.RoutingNumber))
	normalizeDigits(&d.Bank.AccountNumber, validation.IsBankAccountNumber(d.Bank.AccountNumber))
}

// tidy rewrites what people commonly type into the form the rules read, before they read
// it: a dollar sign before an amount ("$62,000"), a ZIP+4 typed as nine digits or with a
// space. Validate works on a tidied copy and Normalize tidies, so "$62,000" is accepted and
// stored as 62000. Anything else is left for the rules to refuse with their message.
func (d *Draft) tidy() {
	b := &d.Business
	for _, s := range []*string{&b.MonthlyVolume, &b.AverageTicket, &b.HighestTicket} {
		*s = tidyMoney(*s)
	}
	b.Address.PostalCode = tidyZIP(b.Address.PostalCode)
	for i := range d.Owners {
		d.Owners[i].Address.PostalCode = tidyZIP(d.Owners[i].Address.PostalCode)
	}
}

// tidyMoney drops a dollar sign (and the spaces after it) from an amount: "$62,000",
// "$ 62,000.00", "US$62000" and "62000 USD" read as 62,000. An amount that still does not
// read stays as typed, for its message.
func tidyMoney(s string) string {
	t := strings.TrimSpace(s)
	for _, p := range []string{"US$", "USD", "$"} {
		if rest, ok := strings.CutPrefix(t, p); ok {
			t = strings.TrimSpace(rest)
			break
		}
	}
	if rest, ok := strings.CutSuffix(t, "USD"); ok {
		t = strings.TrimSpace(rest)
	}
	if _, ok := validation.Hundredths(t); ok {
		return t
	}
	return s
}

// tidyZIP writes a ZIP+4 typed as nine digits ("941051234") or with a space
// ("94105 1234") the way the rule and the processor read it: 94105-1234.
func tidyZIP(s string) string {
	t := strings.TrimSpace(s)
	if d, ok := validation.Digits(t); ok && len(d) == 9 && (t == d || t == d[:5]+" "+d[5:]) {
		return d[:5] + "-" + d[5:]
	}
	return s
}

// normalizePhone stores a phone number one way: a US number as its 10 digits (what the
// portal sends: the processor's phone fields take 10-digit US numbers), an international
// one as + and its digits. A number the rule refuses stays as typed. FormatPhone shows it again.
func normalizePhone(s string) string {
	if !validation.IsPhone(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	digits := b.String()
	switch {
	case strings.HasPrefix(s, "+") && !strings.HasPrefix(digits, "1"):
		return "+" + digits
	case len(digits) == 11:
		return digits[1:] // the country code 1 of a US number
	}
	return digits
}

// FormatPhone writes a stored phone number for people: a US number as (415) 555-0100,
// anything else as stored.
func FormatPhone(s string) string {
	if len(s) != 10 {
		return s
	}
	if _, ok := validation.Digits(s); !ok || !validation.IsPhone(s) {
		return s
	}
	return "(" + s[:3] + ") " + s[3:6] + "-" + s[6:]
}

// IsPhoneField reports whether a canonical field name is a phone number.
func IsPhoneField(field string) bool {
	return field == "business.phone" || field == "contact.phone" || strings.HasSuffix(field, ".phone") && strings.HasPrefix(field, "owners.")
}

// normalizeDigits drops separators from a number that passed its rule.
func normalizeDigits(s *string, valid bool) {
	if digits, ok := validation.Digits(*s); valid && ok {
		*s = digits
	}
}

func normalizeAddress(a *Address) {
	a.State = upperIf(a.State, validation.IsUSState)
}

func upperIf(s string, valid func(string) bool) string {
	if valid(s) {
		return strings.ToUpper(s)
	}
	return s
}

// normalizeAmount drops thousands commas from an amount or percentage that parse accepts.
func normalizeAmount(s *string, parse func(string) (int64, bool)) {
	if _, ok := parse(*s); ok {
		*s = strings.ReplaceAll(*s, ",", "")
	}
}

// SensitiveField points at one personal-data value of a draft (an SSN, the TIN or the account
// number), for the store to encrypt before saving and decrypt after loading.
type SensitiveField struct {
	// Field is the canonical form field name ("owners.1.ssn"), for the page and messages.
	Field string
	// Key names the value stably, for the encryption AAD and the audit trail: "business.tin",
	// "bank.account_number" or "owners.<owner id>.ssn". Unlike Field it does not change when an
	// earlier owner is removed. Call EnsureOwnerIDs first so every owner has an id.
	Key string
	// Value is the field itself; the store replaces it with the ciphertext or the plaintext.
	Value *string
}

// SensitiveFields returns the personal-data fields of d (those the registry marks
// sensitive), pointing into d, in form order.
func (d *Draft) SensitiveFields() []SensitiveField {
	var out []SensitiveField
	for _, f := range fieldTable {
		if !f.sensitive {
			continue
		}
		sub, isOwner := strings.CutPrefix(f.pattern, "owners.*.")
		if !isOwner {
			out = append(out, SensitiveField{Field: f.pattern, Key: f.pattern, Value: d.stringField(f.pattern)})
			continue
		}
		for i := range d.Owners {
			out = append(out, SensitiveField{
				Field: OwnerField(i, sub), Key: "owners." + d.Owners[i].ID + "." + sub, Value: d.stringField(OwnerField(i, sub)),
			})
		}
	}
	return out
}

// stringField points at the text field with the given canonical name; the registry names
// only real text fields as sensitive, which the tests check.
func (d *Draft) stringField(name string) *string {
	v, err := d.lookup(name, false)
	if err != nil || v.Kind() != reflect.String {
		panic("drafts: " + name + " is not a text field of the draft")
	}
	return v.Addr().Interface().(*string)
}

// TaxID is the number to send upstream as legalEntity.tin: the TIN, or for a sole proprietor
// who left it empty, the first owner's SSN (a sole proprietor may use an SSN as TIN).
func (d *Draft) TaxID() string {
	tin := strings.TrimSpace(d.Business.TIN)
	if tin == "" && d.Business.EntityType == EntitySoleProprietor && len(d.Owners) > 0 {
		return strings.TrimSpace(d.Owners[0].SSN)
	}
	return tin
}

// Clone returns a copy of d that shares no owners with it.
func (d Draft) Clone() Draft {
	out := d
	out.Owners = append([]Owner(nil), d.Owners...)
	return out
}

// Masked returns a copy of d with every personal-data value replaced by its mask (last four
// digits), except the fields in held: those hold a value the rep just typed that failed
// validation and was not saved, which the form shows back as typed. A stored value is never
// in held, so it is always masked.
func (d Draft) Masked(held map[string]bool) Draft {
	out := d.Clone()
	for _, f := range out.SensitiveFields() {
		if held[f.Field] {
			continue
		}
		*f.Value = fieldcrypt.Mask(*f.Value)
	}
	return out
}
