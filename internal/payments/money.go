package payments

import (
	"strings"

	"github.com/payportal/portal/internal/validation"
)

// MaxAmountCents is the largest amount the portal sends: the processor's
// sandbox takes up to 99,999.99 per transaction and the published API states
// no bound, so the portal keeps to it.
const MaxAmountCents = 9_999_999

// ParseAmount reads an amount above zero as people type it: "$1,234.50",
// "1234.5", " 12 ". It answers the cents, or a message for the field.
func ParseAmount(typed string) (int64, string) {
	cents, msg := parseCents(typed)
	if msg == "" && cents == 0 {
		return 0, "Enter an amount above zero."
	}
	return cents, msg
}

// parseCents reads an amount of zero or more.
func parseCents(typed string) (int64, string) {
	s := strings.TrimSpace(typed)
	s = strings.TrimPrefix(s, "$")
	s = strings.TrimSpace(strings.TrimPrefix(s, "US"))
	s = strings.ReplaceAll(s, " ", "")
	if s == "" {
		return 0, "Enter an amount."
	}
	if strings.HasPrefix(s, "-") {
		return 0, "Enter an amount above zero."
	}
	cents, ok := validation.Hundredths(s)
	switch {
	case !ok:
		return 0, "Enter an amount in dollars and cents, such as 1,234.50."
	case cents > MaxAmountCents:
		return 0, "The largest amount is " + FormatCents(MaxAmountCents) + "."
	}
	return cents, ""
}

// parseOptionalAmount reads an amount that may be left empty (a tip, a tax).
func parseOptionalAmount(typed string) (int64, string) {
	if strings.TrimSpace(typed) == "" {
		return 0, ""
	}
	return parseCents(typed)
}
