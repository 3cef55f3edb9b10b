package drafts

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// Every text field of a draft has its line in the table of bounds, so no field can hold
// unbounded text; and every line names a real field.
func TestEveryTextFieldIsBounded(t *testing.T) {
	d := Draft{Owners: []Owner{{}}}
	for _, name := range d.FieldNames() {
		v, err := d.lookup(name, false)
		if err != nil {
			t.Fatal(err)
		}
		if v.Kind() != reflect.String {
			continue
		}
		if b, ok := lookupBound(name); !ok || b.maxLen <= 0 {
			t.Errorf("%s has no bound in boundTable", name)
		}
	}
	for pattern := range boundTable {
		name := strings.Replace(pattern, "*", "0", 1)
		if _, err := d.Get(name); err != nil {
			t.Errorf("boundTable line %s names no field of a draft", pattern)
		}
	}
	if len(Bounds()) != len(boundTable) {
		t.Errorf("Bounds() lists %d lines, the table holds %d: a pattern is missing from the registry", len(Bounds()), len(boundTable))
	}
}

// A value exactly at its length bound is accepted and one character more is refused, for
// every field (formats aside: the value is checked for length only).
func TestLengthBounds(t *testing.T) {
	now := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	for _, b := range Bounds() {
		name := strings.Replace(b.Field, "*", "0", 1)
		d := Draft{Owners: []Owner{{ID: "o1"}}}
		if err := d.Set(name, strings.Repeat("x", b.MaxLength+1)); err != nil {
			t.Fatal(err)
		}
		errs := d.Validate(now)
		if want := FieldLabel(name) + " can be at most "; !strings.HasPrefix(errs[name], want) {
			t.Errorf("%s of %d characters: message %q, want one starting %q", name, b.MaxLength+1, errs[name], want)
		}
	}
}

func TestFormatMoney(t *testing.T) {
	for n, want := range map[int64]string{0: "0.00", 5: "0.05", 123456: "1,234.56", 99999999999: "999,999,999.99", 100000: "1,000.00"} {
		if got := formatMoney(n); got != want {
			t.Errorf("formatMoney(%d) = %q, want %q", n, got, want)
		}
	}
}
