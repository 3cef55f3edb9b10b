package mail

import "time"

// When writes t for an e-mail in the first of zones that is a time zone,
// naming the zone ("28 November 2026, 14:05 (America/Los_Angeles)"), else in
// UTC, named too: a reader sees the time where they are, or at least knows
// where it is. Pass the recipient's zone first.
func When(t time.Time, zones ...string) string {
	loc, name := time.UTC, "UTC"
	for _, z := range zones {
		if z == "" {
			continue
		}
		if l, err := time.LoadLocation(z); err == nil {
			loc, name = l, z
			break
		}
	}
	return t.In(loc).Format("2 January 2006, 15:04") + " (" + name + ")"
}
