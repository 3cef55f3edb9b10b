package insights

import (
	"testing"
	"time"
)

// TestFiltersQuery is the decision table of the page's choices: each row a
// choice and the query or the field message it gives.
func TestFiltersQuery(t *testing.T) {
	loc := time.FixedZone("UTC-5", -5*3600)
	now := time.Date(2026, 3, 31, 3, 0, 0, 0, time.UTC) // still March 30 in loc
	day := func(s string) time.Time {
		d, err := time.ParseInLocation(time.DateOnly, s, loc)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	const rep = "7f0b6a52-4c1e-4d5e-9a57-0e1f2a3b4c5d"
	tests := []struct {
		name           string
		in             Filters
		from, to, by   string // the choices as the page shows them after
		field, message string // the one problem; "" for none
	}{
		{"the last 90 days by default", Filters{}, "2025-12-31", "2026-03-30", "", "", ""},
		{"90 days up to the chosen end", Filters{To: "2026-01-31"}, "2025-11-03", "2026-01-31", "", "", ""},
		{"90 days up to today when the end is no date", Filters{To: "soon"}, "2025-12-31", "soon", "", "to", "To must be a date, like 2026-03-31."},
		{"a start that is no date", Filters{From: "yesterday", To: "2026-01-31"}, "yesterday", "2026-01-31", "", "from", "From must be a date, like 2026-01-31."},
		{"an end before the start", Filters{From: "2026-02-01", To: "2026-01-31"}, "2026-02-01", "2026-01-31", "", "to", "To must be on or after From."},
		{"one day", Filters{From: "2026-01-31", To: "2026-01-31"}, "2026-01-31", "2026-01-31", "", "", ""},
		{"more than three years", Filters{From: "2020-01-01", To: "2026-01-31"}, "2020-01-01", "2026-01-31", "", "from", "Choose a period of at most three years."},
		{"a rep", Filters{From: "2026-01-01", To: "2026-01-31", Owner: rep, By: ByRep}, "2026-01-01", "2026-01-31", ByRep, "", ""},
		{"a rep who is no id", Filters{From: "2026-01-01", To: "2026-01-31", Owner: "bob"}, "2026-01-01", "2026-01-31", "", "owner", "Choose a rep from the list."},
		{"a pricing model", Filters{From: "2026-01-01", To: "2026-01-31", Pricing: rep, By: ByPricing}, "2026-01-01", "2026-01-31", ByPricing, "", ""},
		{"a pricing model that is no id", Filters{From: "2026-01-01", To: "2026-01-31", Pricing: "x"}, "2026-01-01", "2026-01-31", "", "pricing", "Choose a pricing model from the list."},
		{"an unknown grouping is dropped", Filters{From: "2026-01-01", To: "2026-01-31", By: "colour"}, "2026-01-01", "2026-01-31", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.in
			q, errs := f.query(now, loc)
			if f.From != tt.from || f.To != tt.to || f.By != tt.by {
				t.Errorf("choices after: %q %q %q; want %q %q %q", f.From, f.To, f.By, tt.from, tt.to, tt.by)
			}
			if tt.field == "" {
				if errs != nil {
					t.Fatalf("problems %v; want none", errs)
				}
				if !q.From.Equal(day(tt.from)) || !q.To.Equal(day(tt.to).AddDate(0, 0, 1)) {
					t.Errorf("query %v – %v; want %s up to the day after %s", q.From, q.To, tt.from, tt.to)
				}
				if (tt.in.Owner != "") != (q.Owner != nil) || (tt.in.Pricing != "") != (q.Pricing != nil) {
					t.Errorf("owner %v, pricing %v", q.Owner, q.Pricing)
				}
				return
			}
			if len(errs) != 1 || errs[tt.field] != tt.message {
				t.Errorf("problems %v; want %s: %q", errs, tt.field, tt.message)
			}
		})
	}
}
