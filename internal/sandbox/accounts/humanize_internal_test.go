package accounts

import (
	"encoding/json"
	"testing"
	"time"
)

// TestParseValue is parseValue's decision table: one row per way a page's
// value is read, kept or refused.
func TestParseValue(t *testing.T) {
	fields := map[string]fieldSpec{}
	for _, f := range catalog() {
		fields[f.Path] = f
	}
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name, path, raw string
		want            any
		msg             string
	}{
		{"control characters", "business.phone", "503\x01555", nil, "Must be plain text, without control characters."},
		{"not one of the options", "legalEntity.type", "trust", nil, "Choose one of the options."},
		{"an option", "legalEntity.type", " llc ", "llc", ""},
		{"yes or no", "legalEntity.foreign", "true", true, ""},
		{"a whole number", "legalEntity.yearsInBusiness", "3", json.Number("3"), ""},
		{"not a whole number", "legalEntity.yearsInBusiness", "3.5", nil, "Must be a whole number."},
		{"not a number", "owners[].percentOwnership", "half", nil, "Must be a number."},
		{"a friendly phone number", "business.phone", "(503) 555-0142", "5035550142", ""},
		{"a friendly amount", "business.monthlyVolume", "$62,000", "62000.00", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, ok := fields[tt.path]
			if !ok {
				t.Fatalf("no field %s in the catalog", tt.path)
			}
			got, msg := parseValue(f, tt.raw, now)
			if msg != tt.msg || got != tt.want {
				t.Errorf("parseValue(%s, %q) = %#v, %q; want %#v, %q", tt.path, tt.raw, got, msg, tt.want, tt.msg)
			}
		})
	}
}
