package insights

import (
	"testing"
	"time"
)

func TestPercentileInterpolatesBetweenRanks(t *testing.T) {
	day := 24 * time.Hour
	ds := []time.Duration{10 * day, 1 * day, 3 * day, 2 * day}
	if got := percentile(ds, .5); got != 60*time.Hour {
		t.Errorf("median %v, want 2.5 days", got)
	}
	if got := percentile(ds, .9); got != time.Duration(7.9*float64(day)) {
		t.Errorf("p90 %v, want 7.9 days", got)
	}
	if got := percentile([]time.Duration{time.Hour}, .9); got != time.Hour {
		t.Errorf("one value: %v", got)
	}
	if got := percentile(nil, .5); got != 0 {
		t.Errorf("no value: %v", got)
	}
}

func TestWords(t *testing.T) {
	for d, want := range map[time.Duration]string{
		45 * time.Minute: "45 minutes", 5*time.Hour + 30*time.Minute: "5.5 hours", 24 * time.Hour: "24 hours", 76 * time.Hour: "3.2 days", 72 * time.Hour: "3 days",
	} {
		if got := Words(d); got != want {
			t.Errorf("Words(%v) = %q, want %q", d, got, want)
		}
	}
}
