package payments

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
)

// Card data is safe by construction: the types below keep their digits
// inside a closure, and every way Go prints or encodes a value (String,
// Format for every verb, GoString, MarshalJSON, MarshalText, LogValue)
// shows at most the first six and last four digits of a card number, the
// last four of a bank account number and nothing of a security code. fmt
// and every reflection-based printer show a func as an address, so even a
// struct printed with %+v that holds one of them in an unexported field
// shows no digit. Only the wire body reads the digits, through the
// unexported reveal methods.

// ErrInvalidCardData reports card or bank data that cannot be right.
var ErrInvalidCardData = errors.New("payments: invalid card data")

// secret holds digits out of reach of reflection-based printers: no
// printer calls a func.
type secret func() string

// hide wraps digits in a secret.
func hide(digits string) secret { return func() string { return digits } }

// CardNumber is a primary account number (PAN).
type CardNumber struct{ s secret }

// NewCardNumber reads a card number typed by a person: spaces and dashes
// are dropped; 12 to 19 digits that pass the Luhn check are required.
func NewCardNumber(typed string) (CardNumber, error) {
	d := stripSeparators(typed)
	switch {
	case d == "":
		return CardNumber{}, fmt.Errorf("%w: the card number is empty", ErrInvalidCardData)
	case !allDigits(d):
		return CardNumber{}, fmt.Errorf("%w: a card number holds only digits", ErrInvalidCardData)
	case len(d) < 12 || len(d) > 19:
		return CardNumber{}, fmt.Errorf("%w: a card number has 12 to 19 digits", ErrInvalidCardData)
	case !Luhn(d):
		return CardNumber{}, fmt.Errorf("%w: the card number fails its check digit", ErrInvalidCardData)
	}
	return CardNumber{hide(d)}, nil
}

// IsZero reports an unset card number.
func (c CardNumber) IsZero() bool { return c.s == nil }

// reveal returns the digits, for the request body only.
func (c CardNumber) reveal() string {
	if c.s == nil {
		return ""
	}
	return c.s()
}

// First6 returns the issuer identification number (BIN).
func (c CardNumber) First6() string {
	if c.s == nil {
		return ""
	}
	return c.s()[:6]
}

// Last4 returns the last four digits.
func (c CardNumber) Last4() string {
	if c.s == nil {
		return ""
	}
	return c.s()[len(c.s())-4:]
}

// Brand names the card scheme from its leading digits ("Visa",
// "Mastercard", "American Express", "Discover", "JCB", "Diners Club"), or
// "Card" when unknown.
func (c CardNumber) Brand() string { return BrandOf(c.reveal()) }

// Masked returns the first six and last four digits with the middle
// starred: 411111******1111.
func (c CardNumber) Masked() string {
	if c.s == nil {
		return ""
	}
	d := c.s()
	return d[:6] + strings.Repeat("*", len(d)-10) + d[len(d)-4:]
}

// String returns Masked.
func (c CardNumber) String() string { return c.Masked() }

// GoString returns Masked, for %#v.
func (c CardNumber) GoString() string { return `payments.CardNumber("` + c.Masked() + `")` }

// Format prints Masked whatever the verb, so %x or %d cannot reach the
// digits.
func (c CardNumber) Format(f fmt.State, verb rune) { formatMasked(f, verb, c.Masked(), c.GoString()) }

// MarshalJSON encodes Masked, so a card number in a job argument, an event
// or an error body is masked.
func (c CardNumber) MarshalJSON() ([]byte, error) { return json.Marshal(c.Masked()) }

// MarshalText encodes Masked for text encoders.
func (c CardNumber) MarshalText() ([]byte, error) { return []byte(c.Masked()), nil }

// LogValue logs Masked.
func (c CardNumber) LogValue() slog.Value { return slog.StringValue(c.Masked()) }

// SecurityCode is a card security code (CVV2, CVC2, CID). It never prints.
type SecurityCode struct{ s secret }

// redactedCode is what a security code prints as.
const redactedCode = "***"

// NewSecurityCode reads a 3- or 4-digit security code.
func NewSecurityCode(typed string) (SecurityCode, error) {
	d := strings.TrimSpace(typed)
	if !allDigits(d) || len(d) < 3 || len(d) > 4 {
		return SecurityCode{}, fmt.Errorf("%w: a security code has 3 or 4 digits", ErrInvalidCardData)
	}
	return SecurityCode{hide(d)}, nil
}

// IsZero reports an unset security code.
func (c SecurityCode) IsZero() bool { return c.s == nil }

// Len returns the number of digits (4 for American Express).
func (c SecurityCode) Len() int { return len(c.reveal()) }

func (c SecurityCode) reveal() string {
	if c.s == nil {
		return ""
	}
	return c.s()
}

func (c SecurityCode) masked() string {
	if c.s == nil {
		return ""
	}
	return redactedCode
}

// String returns "***" (or "" when unset): never a digit.
func (c SecurityCode) String() string { return c.masked() }

// GoString hides the code for %#v.
func (c SecurityCode) GoString() string { return `payments.SecurityCode("` + c.masked() + `")` }

// Format prints "***" whatever the verb.
func (c SecurityCode) Format(f fmt.State, verb rune) { formatMasked(f, verb, c.masked(), c.GoString()) }

// MarshalJSON encodes "***".
func (c SecurityCode) MarshalJSON() ([]byte, error) { return json.Marshal(c.masked()) }

// MarshalText encodes "***".
func (c SecurityCode) MarshalText() ([]byte, error) { return []byte(c.masked()), nil }

// LogValue logs "***".
func (c SecurityCode) LogValue() slog.Value { return slog.StringValue(c.masked()) }

// BankAccountNumber is a bank (ACH) account number. It prints its last four
// digits only.
type BankAccountNumber struct{ s secret }

// NewBankAccountNumber reads an account number of 3 to 17 digits (spaces
// and dashes dropped).
func NewBankAccountNumber(typed string) (BankAccountNumber, error) {
	d := stripSeparators(typed)
	if !allDigits(d) || len(d) < 3 || len(d) > 17 {
		return BankAccountNumber{}, fmt.Errorf("%w: a bank account number has 3 to 17 digits", ErrInvalidCardData)
	}
	return BankAccountNumber{hide(d)}, nil
}

// IsZero reports an unset account number.
func (a BankAccountNumber) IsZero() bool { return a.s == nil }

func (a BankAccountNumber) reveal() string {
	if a.s == nil {
		return ""
	}
	return a.s()
}

// Last4 returns the last four digits (fewer for a shorter number).
func (a BankAccountNumber) Last4() string {
	d := a.reveal()
	return d[max(0, len(d)-4):]
}

// Masked returns the last four digits behind four stars: ****6789.
func (a BankAccountNumber) Masked() string {
	if a.s == nil {
		return ""
	}
	return "****" + a.Last4()
}

// String returns Masked.
func (a BankAccountNumber) String() string { return a.Masked() }

// GoString returns Masked, for %#v.
func (a BankAccountNumber) GoString() string {
	return `payments.BankAccountNumber("` + a.Masked() + `")`
}

// Format prints Masked whatever the verb.
func (a BankAccountNumber) Format(f fmt.State, verb rune) {
	formatMasked(f, verb, a.Masked(), a.GoString())
}

// MarshalJSON encodes Masked.
func (a BankAccountNumber) MarshalJSON() ([]byte, error) { return json.Marshal(a.Masked()) }

// MarshalText encodes Masked.
func (a BankAccountNumber) MarshalText() ([]byte, error) { return []byte(a.Masked()), nil }

// LogValue logs Masked.
func (a BankAccountNumber) LogValue() slog.Value { return slog.StringValue(a.Masked()) }

// formatMasked writes masked for any verb; %#v gets the Go syntax form and
// %q a quoted string.
func formatMasked(f fmt.State, verb rune, masked, goSyntax string) {
	switch {
	case verb == 'v' && f.Flag('#'):
		_, _ = fmt.Fprint(f, goSyntax)
	case verb == 'q':
		_, _ = fmt.Fprintf(f, "%q", masked)
	default:
		_, _ = fmt.Fprint(f, masked)
	}
}

func stripSeparators(s string) string {
	return strings.NewReplacer(" ", "", "-", "", "\t", "").Replace(strings.TrimSpace(s))
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// Luhn reports whether digits pass the Luhn (mod 10) check.
func Luhn(digits string) bool {
	if !allDigits(digits) {
		return false
	}
	sum, double := 0, false
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		if double {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

// brandRanges are the card schemes by a number's leading digits: a prefix of
// digits digits from low to high, tried in order.
var brandRanges = []struct {
	brand             string
	digits, low, high int
}{
	{"Visa", 1, 4, 4},
	{"Mastercard", 2, 51, 55},
	{"Mastercard", 4, 2221, 2720},
	{"American Express", 2, 34, 34},
	{"American Express", 2, 37, 37},
	{"Discover", 4, 6011, 6011},
	{"Discover", 2, 65, 65},
	{"Discover", 3, 644, 649},
	{"JCB", 4, 3528, 3589},
	{"Diners Club", 2, 36, 36},
	{"Diners Club", 2, 38, 38},
	{"Diners Club", 3, 300, 305},
}

// BrandOf names the card scheme of a card number's leading digits.
func BrandOf(digits string) string {
	for _, r := range brandRanges {
		if p := leading(digits, r.digits); p >= r.low && p <= r.high {
			return r.brand
		}
	}
	return "Card"
}

// leading is the number the first n digits make, or -1 when there are fewer.
func leading(digits string, n int) int {
	if len(digits) < n {
		return -1
	}
	v := 0
	for _, r := range digits[:n] {
		v = v*10 + int(r-'0')
	}
	return v
}
