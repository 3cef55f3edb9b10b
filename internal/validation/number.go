package validation

import (
	"regexp"
	"strings"
)

// decimalPattern accepts an optional minus, then digits (plain or grouped in thousands with
// commas) with an optional fraction, or a bare fraction such as .5.
var decimalPattern = regexp.MustCompile(`^-?(?:(?:\d+|\d{1,3}(?:,\d{3})+)(?:\.\d+)?|\.\d+)$`)

// IsDecimal reports whether s is a decimal number: 1234, 1234.5, 1,234.50, .5 or -12.
func IsDecimal(s string) bool {
	return decimalPattern.MatchString(s)
}

// IsNotNegative fails only for a negative decimal number. Anything else passes, so that a
// malformed value is reported by TagDecimal rather than as "negative".
func IsNotNegative(s string) bool {
	return !strings.HasPrefix(s, "-") || !IsDecimal(s)
}

// HasAtMostTwoDecimals reports whether s is a decimal number with at most two digits after the
// point.
func HasAtMostTwoDecimals(s string) bool {
	if !IsDecimal(s) {
		return false
	}
	_, frac, _ := strings.Cut(s, ".")
	return len(frac) <= 2
}

// IsAtMostHundred reports whether s is a decimal number no greater than 100.
func IsAtMostHundred(s string) bool {
	if !IsDecimal(s) {
		return false
	}
	if strings.HasPrefix(s, "-") {
		return true
	}
	whole, frac, _ := strings.Cut(strings.ReplaceAll(s, ",", ""), ".")
	whole = strings.TrimLeft(whole, "0")
	if len(whole) < 3 {
		return true
	}
	return whole == "100" && strings.Trim(frac, "0") == ""
}

// maxAmountDigits bounds the whole part of an amount so that hundredths fit in an int64 with
// room to add many of them.
const maxAmountDigits = 15

// Hundredths parses a non-negative decimal with at most two decimal places (commas allowed as
// thousands separators) into hundredths: "1,234.5" is 123450. It reports false for anything
// else, including numbers with more than 15 digits before the point. Money and percentages
// are summed in hundredths so that 33.33 + 33.33 + 33.34 is exactly 100.
func Hundredths(s string) (int64, bool) {
	if !IsDecimal(s) || strings.HasPrefix(s, "-") || !HasAtMostTwoDecimals(s) {
		return 0, false
	}
	whole, frac, _ := strings.Cut(strings.ReplaceAll(s, ",", ""), ".")
	whole = strings.TrimLeft(whole, "0")
	if len(whole) > maxAmountDigits {
		return 0, false
	}
	for len(frac) < 2 {
		frac += "0"
	}
	var n int64
	for _, r := range whole + frac {
		n = n*10 + int64(r-'0')
	}
	return n, true
}

// IsWholeNumber reports whether s is a non-negative whole number written with digits only.
func IsWholeNumber(s string) bool {
	return allDigits(s)
}

// IsMCC reports whether s is a merchant category code: exactly 4 digits.
func IsMCC(s string) bool {
	return len(s) == 4 && allDigits(s)
}
