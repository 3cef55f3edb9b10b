package handoff

import (
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/validation"
)

// FuzzWebhookDecoder decodes and checks any body: it never panics, and an event it accepts
// is one Postgres can store (text id, a time in range, a known status).
func FuzzWebhookDecoder(f *testing.F) {
	for _, seed := range []string{
		`{"id":"6f1c2a5e-0000-4000-8000-000000000000","status":"boarded","created":1767225600000,"token":"t"}`,
		`{"id":"x","status":"boarded","created":9223372036854775807,"token":"t"}`,
		`{"id":"abc\u0000def","status":"boarded","created":1767225600000,"token":"t"}`,
		`{"id":"` + strings.Repeat("a", 300) + `","status":"active","created":1}`,
		`{"id":"a","status":"nope","created":-5}`, `[]`, `{"created":"soon"}`, `{`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		b, err := decodeWebhook(strings.NewReader(string(body)))
		if err != nil {
			return
		}
		ev, err := b.event()
		if err != nil {
			return
		}
		if !validation.IsText(ev.UpstreamApplicationID) || len(ev.UpstreamApplicationID) > maxUpstreamIDLength || ev.UpstreamApplicationID == "" {
			t.Fatalf("accepted id %q", ev.UpstreamApplicationID)
		}
		if ev.Created.Year() < 2000 || ev.Created.Year() > 9999 || ev.Created.Location() != time.UTC {
			t.Fatalf("accepted created %v", ev.Created)
		}
		if !applications.ValidUpstreamStatus(ev.Status) {
			t.Fatalf("accepted status %q", ev.Status)
		}
	})
}
