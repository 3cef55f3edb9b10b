package kit

import (
	"strconv"
	"time"
)

// DurationWords writes d as people write it: "500 milliseconds", "3
// seconds", "1.5 minutes", "2 hours". The sandbox shares no code with the
// portal, whose pages have the same rule (view.Duration).
func DurationWords(d time.Duration) string {
	switch {
	case d < time.Second:
		return unitCount(float64(d.Milliseconds()), "millisecond")
	case d < time.Minute:
		return unitCount(d.Seconds(), "second")
	case d < time.Hour:
		return unitCount(d.Minutes(), "minute")
	}
	return unitCount(d.Hours(), "hour")
}

func unitCount(v float64, unit string) string {
	s := strconv.FormatFloat(v, 'f', 1, 64)
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		s = s[:len(s)-2]
	}
	if s != "1" {
		unit += "s"
	}
	return s + " " + unit
}
