package httpx_test

import (
	"testing"

	"github.com/payportal/portal/internal/httpx"
)

// A checkbox is ticked by what browsers send for a ticked box, and by nothing else;
// no value fails to bind.
func TestCheckboxBindsEveryValue(t *testing.T) {
	for v, want := range map[string]bool{"true": true, "on": true, "1": true, "Yes": true, " TRUE ": true,
		"": false, "false": false, "off": false, "perhaps": false, "\x00": false} {
		c := httpx.Checkbox(!want)
		if err := c.UnmarshalParam(v); err != nil || bool(c) != want {
			t.Errorf("%q: %v (%v), want %v", v, c, err, want)
		}
	}
}
