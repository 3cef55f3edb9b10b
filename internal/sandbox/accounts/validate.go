package accounts

import (
	"encoding/json"
	"net/mail"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// rule checks one leaf value and returns a message ("must be ...") or "".
// Values are strings, json.Number or bool, as decoded JSON holds them.
type rule func(v any, now time.Time) string

// fieldRules maps the last segment of a field path to its format rule.
// Rules are keyed by that segment because the published names mean one
// thing wherever they appear (every "email" is an email address, every
// "state" a state). The table is built once and never changed.
var fieldRules = map[string]rule{
	"email":              textRule(validEmail, "must be an email address"),
	"phone":              textRule(validPhone, "must be a 10-digit US phone number"),
	"websiteUrl":         textRule(validWebURL, "must be an http or https address"),
	"state":              patternRule(`^[A-Z]{2}$`, "must be a two-letter state code in capitals, such as TX"),
	"incorporationState": patternRule(`^[A-Z]{2}$`, "must be a two-letter state code in capitals, such as TX"),
	"postalCode":         patternRule(`^\d{5}(-\d{4})?$`, "must be a 5-digit ZIP code or ZIP+4"),
	"mcc":                patternRule(`^\d{4}$`, "must be a 4-digit merchant category code"),
	"monthlyVolume":      amountRule,
	"averageTicket":      amountRule,
	"highTicket":         amountRule,
	"tin":                patternRule(`^(\d{9}|\d{2}-\d{7})$`, "must be a 9-digit tax id"),
	"ssn":                patternRule(`^(\d{9}|\d{3}-\d{2}-\d{4})$`, "must be a 9-digit social security number"),
	"depositAccount":     patternRule(`^\d{3,17}$`, "must be 3 to 17 digits"),
	"depositRouting":     routingRule,
	"accountType":        patternRule(`^(Checking|Savings)$`, "must be Checking or Savings"),
	"dob":                dobRule,
	"incorporationDate":  incorporationRule,
	"yearsInBusiness":    rangeRule(0, 200, "must be between 0 and 200"),
	"percentOwnership":   rangeRule(0, 100, "must be between 0 and 100"),
}

var amountRule = patternRule(`^\d{1,12}(\.\d{1,2})?$`, "must be an amount in dollars, such as 12500.00")

// ruleFor returns the format rule for a field path, followed by its bound (bounds.go), or
// nil.
func ruleFor(path string) rule {
	format := fieldRules[path[strings.LastIndex(path, ".")+1:]]
	if format == nil {
		return nil
	}
	return func(v any, now time.Time) string {
		if msg := format(v, now); msg != "" {
			return msg
		}
		if s, ok := v.(string); ok {
			return amountBound(path, s)
		}
		return ""
	}
}

func textRule(ok func(string) bool, msg string) rule {
	return func(v any, _ time.Time) string {
		if s, _ := v.(string); !ok(s) {
			return msg
		}
		return ""
	}
}

func patternRule(pattern, msg string) rule {
	re := regexp.MustCompile(pattern)
	return textRule(re.MatchString, msg)
}

func rangeRule(lo, hi float64, msg string) rule {
	return func(v any, _ time.Time) string {
		n, _ := v.(json.Number)
		f, err := n.Float64()
		if err != nil || f < lo || f > hi {
			return msg
		}
		return ""
	}
}

// routingRule explains which of the two routing-number checks failed.
func routingRule(v any, _ time.Time) string {
	s, _ := v.(string)
	if len(s) != 9 || !isDigits(s) {
		return "must be a 9-digit routing number"
	}
	if !validRouting(s) {
		return "is not a valid routing number: its digits fail the ABA checksum (the test routing number 011401533 passes)"
	}
	return ""
}

// dobRule accepts a date of birth of a person aged 18 to 120, by calendar days.
func dobRule(v any, now time.Time) string {
	s, _ := v.(string)
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return "must be a date written YYYY-MM-DD"
	}
	today := calendarDay(now)
	if d.AddDate(18, 0, 0).After(today) {
		return "must be the date of birth of a person aged 18 or over"
	}
	if d.AddDate(120, 0, 0).Before(today) {
		return "must be a date of birth within the last 120 years"
	}
	return ""
}

// incorporationRule accepts a date that is not in the future nor before 1800.
func incorporationRule(v any, now time.Time) string {
	s, _ := v.(string)
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return "must be a date written YYYY-MM-DD"
	}
	if d.After(calendarDay(now)) {
		return "must not be in the future"
	}
	if s < earliestIncorporation {
		return "must be in 1800 or later"
	}
	return ""
}

// calendarDay is the date of now, as midnight UTC like a parsed date, so dates compare by day.
func calendarDay(now time.Time) time.Time {
	y, m, d := now.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

func validEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s
}

func validPhone(s string) bool {
	digits := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		if strings.ContainsRune(" -().+", r) {
			return -1
		}
		return 'x'
	}, s)
	if len(digits) == 11 && digits[0] == '1' {
		digits = digits[1:]
	}
	_, err := strconv.ParseUint(digits, 10, 64)
	return len(digits) == 10 && err == nil
}

func validWebURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// validRouting reports whether s is 9 digits passing the ABA checksum
// 3·d1 + 7·d2 + d3 + 3·d4 + 7·d5 + d6 + 3·d7 + 7·d8 + d9 ≡ 0 (mod 10).
// The test routing number 011401533 passes it.
func validRouting(s string) bool {
	if len(s) != 9 {
		return false
	}
	weights := [9]int{3, 7, 1, 3, 7, 1, 3, 7, 1}
	sum := 0
	for i, r := range s {
		if r < '0' || r > '9' {
			return false
		}
		sum += weights[i] * int(r-'0')
	}
	return sum%10 == 0
}

// maxOwners bounds the owners list.
const maxOwners = 10

// checkWhole applies the rules that span fields to merged application data.
func checkWhole(data map[string]any) *kit.APIError {
	owners, _ := data["owners"].([]any)
	if len(owners) > maxOwners {
		return kit.FieldError("owners", "must list at most 10 owners")
	}
	total := 0.0
	for _, o := range owners {
		m, _ := o.(map[string]any)
		if n, ok := m["percentOwnership"].(json.Number); ok {
			f, _ := n.Float64()
			total += f
		}
	}
	if total > 100 {
		return kit.FieldError("owners", "ownership percentages must not add up to more than 100")
	}
	return nil
}
