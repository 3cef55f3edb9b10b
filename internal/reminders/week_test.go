package reminders

import (
	"testing"
	"time"
)

func TestDigestWeek(t *testing.T) {
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		now     time.Time
		loc     *time.Location
		weekday time.Weekday
		week    string
		due     time.Time
	}{
		{"Monday morning UTC", time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC), time.UTC, time.Monday, "2026-11-23", time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)},
		{"Sunday evening UTC is the week before", time.Date(2026, 11, 22, 23, 0, 0, 0, time.UTC), time.UTC, time.Monday, "2026-11-16", time.Date(2026, 11, 16, 8, 0, 0, 0, time.UTC)},
		// 06:00 UTC on Monday is still Sunday evening in Los Angeles.
		{"the rep's zone decides", time.Date(2026, 11, 23, 6, 0, 0, 0, time.UTC), la, time.Monday, "2026-11-16", time.Date(2026, 11, 16, 8, 0, 0, 0, la)},
		{"Friday digest", time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC), time.UTC, time.Friday, "2026-11-23", time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)},
		{"Sunday digest ends the week", time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC), time.UTC, time.Sunday, "2026-11-23", time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)},
		// Daylight saving ends on 2026-11-01 in Los Angeles: 08:00 is still 08:00.
		{"across a change of daylight saving", time.Date(2026, 11, 2, 17, 0, 0, 0, time.UTC), la, time.Monday, "2026-11-02", time.Date(2026, 11, 2, 8, 0, 0, 0, la)},
	}
	for _, tt := range tests {
		week, due := digestWeek(tt.now, tt.loc, tt.weekday)
		if week.Format("2006-01-02") != tt.week || !due.Equal(tt.due) {
			t.Errorf("%s: week %s due %s, want %s due %s", tt.name, week.Format("2006-01-02"), due, tt.week, tt.due)
		}
	}
}
