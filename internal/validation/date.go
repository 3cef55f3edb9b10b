package validation

import (
	"regexp"
	"time"
)

// DateLayout is how dates are written in forms and stored in drafts (what <input type="date">
// submits).
const DateLayout = "2006-01-02"

var datePattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// ParseDate parses a date written YYYY-MM-DD that exists on the calendar (2024-02-29 does,
// 2023-02-29 does not). The result is midnight UTC of that date.
func ParseDate(s string) (time.Time, bool) {
	if !datePattern.MatchString(s) {
		return time.Time{}, false
	}
	t, err := time.Parse(DateLayout, s)
	if err != nil {
		return time.Time{}, false
	}
	return t, true
}

// IsISODate reports whether s is a calendar date written YYYY-MM-DD.
func IsISODate(s string) bool {
	_, ok := ParseDate(s)
	return ok
}
