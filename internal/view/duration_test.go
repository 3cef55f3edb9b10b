package view

import (
	"testing"
	"time"
)

func TestDurationReadsAsPeopleWriteIt(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                               "0 seconds",
		time.Second:                     "1 second",
		45 * time.Second:                "45 seconds",
		time.Minute:                     "1 minute",
		10 * time.Minute:                "10 minutes",
		10*time.Minute + 29*time.Second: "10 minutes",
		time.Hour:                       "1 hour",
		90 * time.Minute:                "1.5 hours",
		25 * time.Hour:                  "25 hours",
		72 * time.Hour:                  "3 days",
		84 * time.Hour:                  "3.5 days",
		-2 * time.Minute:                "2 minutes",
	} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}
