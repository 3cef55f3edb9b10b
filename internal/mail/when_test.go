package mail

import (
	"testing"
	"time"
)

func TestWhenUsesTheRecipientsZoneAndNamesIt(t *testing.T) {
	at := time.Date(2026, 11, 29, 6, 30, 0, 0, time.UTC)
	for _, c := range []struct {
		zones []string
		want  string
	}{
		{[]string{"Asia/Kathmandu", "America/Los_Angeles"}, "29 November 2026, 12:15 (Asia/Kathmandu)"},
		{[]string{"", "America/Los_Angeles"}, "28 November 2026, 22:30 (America/Los_Angeles)"},
		{[]string{"Not/AZone"}, "29 November 2026, 06:30 (UTC)"},
		{nil, "29 November 2026, 06:30 (UTC)"},
	} {
		if got := When(at, c.zones...); got != c.want {
			t.Errorf("When(%v) = %q, want %q", c.zones, got, c.want)
		}
	}
}
