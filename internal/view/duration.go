package view

import (
	"strconv"
	"time"
)

// Duration writes d as people write it: "45 seconds", "10 minutes",
// "1.5 hours", "3 days". It is the one way a length of time is shown (a
// Go duration's "10m0s" is for logs).
func Duration(d time.Duration) string {
	if d < 0 {
		d = -d
	}
	switch {
	case d < time.Minute:
		return count(d.Seconds(), 0, "second")
	case d < time.Hour:
		return count(d.Minutes(), 0, "minute")
	case d < 48*time.Hour:
		return count(d.Hours(), 1, "hour")
	}
	return count(d.Hours()/24, 1, "day")
}

// count writes v rounded to at most decimals places (a trailing ".0"
// dropped) and unit, plural unless v is exactly one.
func count(v float64, decimals int, unit string) string {
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if decimals > 0 && len(s) > 2 && s[len(s)-2:] == ".0" {
		s = s[:len(s)-2]
	}
	if s != "1" {
		unit += "s"
	}
	return s + " " + unit
}
