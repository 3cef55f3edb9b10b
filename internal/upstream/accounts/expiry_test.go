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

func TestBackoffStaysInBounds(t *testing.T) {
	base, ceiling := 100*time.Millisecond, time.Second
	for n := 1; n <= 8; n++ {
		full := min(base<<(n-1), ceiling)
		for range 50 {
			if d := backoff(n, base, ceiling); d < full/2 || d > full {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", n, d, full/2, full)
			}
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"3", 3 * time.Second},
		{"-1", 0},
		{now.Add(10 * time.Second).Format(http1123), 10 * time.Second},
		{"garbage", 0},
	}
	for _, tt := range tests {
		if got := retryAfter(tt.in, now); got != tt.want {
			t.Errorf("retryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

const http1123 = "Mon, 02 Jan 2006 15:04:05 GMT"
