package kit

import (
	"testing"
	"time"
)

func TestDurationWords(t *testing.T) {
	for d, want := range map[time.Duration]string{
		500 * time.Millisecond: "500 milliseconds", time.Second: "1 second", 3 * time.Second: "3 seconds",
		time.Minute: "1 minute", 90 * time.Second: "1.5 minutes", 2 * time.Hour: "2 hours",
	} {
		if got := DurationWords(d); got != want {
			t.Errorf("DurationWords(%v) = %q, want %q", d, got, want)
		}
	}
}
