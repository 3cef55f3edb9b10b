package accounts

import (
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// text returns a stored leaf value as plain text.
func text(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case bool:
		return strconv.FormatBool(v)
	case json.Number:
		return v.String()
	case string:
		return v
	}
	return fmt.Sprint(v)
}

// mask shows only the last four characters of personal data.
func mask(s string) string {
	if len(s) <= 4 {
		return "••••"
	}
	return "•••• " + s[len(s)-4:]
}

// displayValue writes a stored value as a person reads it: option labels
// instead of codes ("Limited liability company (LLC)", not "llc"), phone
// numbers, amounts and dates written out, personal data masked.
func displayValue(f fieldSpec, v any) string {
	s := text(v)
	if s == "" {
		return ""
	}
	if f.Secret {
		return mask(s)
	}
	if len(f.Options) > 0 {
		return f.optionLabel(s)
	}
	switch f.Display {
	case "phone":
		return formatPhone(s)
	case "amount":
		return formatAmount(s)
	case "date":
		if d, err := time.Parse(time.DateOnly, s); err == nil {
			return d.Format("January 2, 2006")
		}
	case "percent":
		return s + "%"
	case "entityType":
		return entityTypeLabel(s)
	case "years":
		if s == "1" {
			return "1 year"
		}
		return s + " years"
	}
	if v, ok := v.(bool); ok {
		return map[bool]string{true: "Yes", false: "No"}[v]
	}
	return s
}

// entityTypeLabel names a legal entity type as legalEntity.type's choices do
// ("llc" is "Limited liability company (LLC)"): business.type has no
// published list, but portals send it the same values. Another value is
// shown as it is.
func entityTypeLabel(s string) string {
	f, _ := reflect.TypeFor[legalEntity]().FieldByName("Type")
	for _, item := range strings.Split(f.Tag.Get("options"), "|") {
		if v, l, _ := strings.Cut(item, "="); v == s {
			return l
		}
	}
	return s
}

// inputValue is what an edit form's input holds for a stored value: the
// same friendly forms, but plain enough to submit again. Personal data is
// never put back in a page: its input starts empty.
func inputValue(f fieldSpec, v any) string {
	s := text(v)
	if s == "" || f.Secret {
		return ""
	}
	switch f.Display {
	case "phone":
		return formatPhone(s)
	case "amount":
		return strings.TrimPrefix(formatAmount(s), "$")
	}
	return s
}

// phoneDigits returns the 10 digits of a US phone number, or "".
func phoneDigits(s string) string {
	d := digitsOnly(s)
	if len(d) == 11 && d[0] == '1' {
		d = d[1:]
	}
	if len(d) != 10 {
		return ""
	}
	return d
}

// formatPhone writes a US number as (503) 555-0142.
func formatPhone(s string) string {
	d := phoneDigits(s)
	if d == "" || !validPhone(s) {
		return s
	}
	return "(" + d[:3] + ") " + d[3:6] + "-" + d[6:]
}

// formatAmount writes a dollar amount as $62,000.00.
func formatAmount(s string) string {
	r, ok := new(big.Rat).SetString(s)
	if !ok || r.Sign() < 0 {
		return s
	}
	whole, frac, _ := strings.Cut(r.FloatString(2), ".")
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return "$" + b.String() + "." + frac
}

// parseValue turns a non-empty form value into the value to store for
// field f, or returns the message to show beside the field. Friendly forms
// are accepted and stored as the API stores them: "(503) 555-0142" as
// "5035550142", "$62,000" as "62000.00", "Yes" choices as true. The API's
// format rules then apply, so the pages accept exactly what the API does.
func parseValue(f fieldSpec, raw string, now time.Time) (any, string) {
	raw = strings.TrimSpace(raw)
	if !utf8.ValidString(raw) || strings.ContainsFunc(raw, unicode.IsControl) {
		return nil, "Must be plain text, without control characters."
	}
	if len(f.Options) > 0 && !slices.ContainsFunc(f.Options, func(o option) bool { return o.Value == raw }) {
		return nil, "Choose one of the options."
	}
	v, msg := typedValue(f.Kind, raw)
	if msg != "" {
		return nil, msg
	}
	v = apiForm(f.Display, raw, v, now)
	if msg := leafType(v, f.Kind, f.Path); msg != "" {
		return nil, sentence(msg)
	}
	if r := ruleFor(f.Path); r != nil {
		if msg := r(v, now); msg != "" {
			return nil, sentence(msg)
		}
	}
	return v, ""
}

// sameValue reports whether a parsed form value says the same as the
// stored one, so a form saved untouched changes nothing.
func sameValue(f fieldSpec, stored, parsed any) bool {
	a, b := text(stored), text(parsed)
	if a == b {
		return true
	}
	switch {
	case f.Display == "phone":
		return phoneDigits(a) != "" && phoneDigits(a) == phoneDigits(b)
	case f.Display == "amount" || f.Kind == reflect.Float64 || f.Kind == reflect.Int:
		x, ok1 := new(big.Rat).SetString(a)
		y, ok2 := new(big.Rat).SetString(b)
		return ok1 && ok2 && x.Cmp(y) == 0
	case f.Secret:
		return digitsOnly(a) != "" && digitsOnly(a) == digitsOnly(b) && len(digitsOnly(a)) == len(digitsOnly(b))
	}
	return false
}

// sentence capitalises a rule message and ends it with a full stop.
func sentence(msg string) string {
	r, n := utf8.DecodeRuneInString(msg)
	return string(unicode.ToUpper(r)) + msg[n:] + "."
}

// typedValue reads raw as the JSON kind of its field: a boolean, or a
// number kept as written.
func typedValue(kind reflect.Kind, raw string) (any, string) {
	switch kind {
	case reflect.Bool:
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return nil, "Choose Yes or No."
		}
		return b, ""
	case reflect.Int:
		if _, err := strconv.Atoi(raw); err != nil {
			return nil, "Must be a whole number."
		}
		return json.Number(raw), ""
	case reflect.Float64:
		if _, err := strconv.ParseFloat(raw, 64); err != nil {
			return nil, "Must be a number."
		}
		return json.Number(raw), ""
	}
	return raw, ""
}

// apiForm turns a friendly phone number or amount into the form the API
// stores; anything else, or one that does not read, is kept as v for the
// API's rules to refuse.
func apiForm(display, raw string, v any, now time.Time) any {
	switch display {
	case "phone":
		if d := phoneDigits(raw); d != "" && validPhone(raw) {
			return d
		}
	case "amount":
		plain := strings.NewReplacer("$", "", ",", "", " ", "").Replace(raw)
		if r, ok := new(big.Rat).SetString(plain); ok && r.Sign() >= 0 && amountRule(plain, now) == "" {
			return r.FloatString(2)
		}
	}
	return v
}
