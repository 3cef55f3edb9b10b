package view

import (
	"testing"
	"time"
)

func TestLocalizeShowsInstantsInTheViewersZone(t *testing.T) {
	var z zones
	at := time.Date(2026, 11, 23, 18, 5, 0, 0, time.UTC)
	page := []byte(`<p>Saved <time datetime="x">` + markTime(kindDateTime, at) + `</time> on ` + markTime(kindDate, at) + `.</p>`)
	cases := []struct{ zone, want string }{
		{"America/Los_Angeles", `<p>Saved <time datetime="x">2026-11-23 10:05 PST</time> on 2026-11-23.</p>`},
		{"Asia/Tokyo", `<p>Saved <time datetime="x">2026-11-24 03:05 JST</time> on 2026-11-24.</p>`},
		{"", `<p>Saved <time datetime="x">2026-11-23 18:05 UTC</time> on 2026-11-23.</p>`},
		{"Not/AZone", `<p>Saved <time datetime="x">2026-11-23 18:05 UTC</time> on 2026-11-23.</p>`},
	}
	for _, c := range cases {
		if got := string(localize(page, z.location(c.zone))); got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.zone, got, c.want)
		}
	}
	plain := []byte("<p>no times</p>")
	if got := localize(plain, time.UTC); &got[0] != &plain[0] {
		t.Error("a page without times is copied")
	}
}
