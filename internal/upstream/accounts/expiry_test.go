package accounts

import (
	"encoding/json"
	"testing"
	"time"
)

func TestExpiry(t *testing.T) {
	sent := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		expAt json.Number
		want  time.Time
	}{
		{"milliseconds", "1772442120000", time.UnixMilli(1772442120000)},
		{"seconds", "1772442120", time.Unix(1772442120, 0)},
		{"fractional seconds", "1772442120.5", time.Unix(1772442120, 5e8)},
		{"just below the threshold is seconds", "999999999999", time.Unix(999999999999, 0)},
		{"the threshold is milliseconds", "1000000000000", time.UnixMilli(1000000000000)},
		{"absent", "", sent.Add(120 * time.Second)},
		{"not a number", "soon", sent.Add(120 * time.Second)},
		{"zero", "0", sent.Add(120 * time.Second)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := expiry(tt.expAt, sent); !got.Equal(tt.want) {
				t.Errorf("expiry(%q) = %v, want %v", tt.expAt, got, tt.want)
			}
		})
	}
}
