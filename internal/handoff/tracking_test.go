package handoff_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/handoff"
	"github.com/payportal/portal/internal/testutil/apptest"
)

func newToken(t *testing.T) string {
	t.Helper()
	tok, err := handoff.NewOpenToken()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestOpenTokensAreLongRandomAndURLSafe(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		tok := newToken(t)
		if len(tok) != 43 || url.PathEscape(tok) != tok || seen[tok] {
			t.Fatalf("token %q", tok)
		}
		seen[tok] = true
	}
}

func TestTrackingURL(t *testing.T) {
	tests := []struct{ base, want string }{
		{"https://portal.example.com", "https://portal.example.com/l/TOKEN"},
		{"https://portal.example.com/", "https://portal.example.com/l/TOKEN"},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080/l/TOKEN"},
	}
	for _, tt := range tests {
		u, _ := url.Parse(tt.base)
		if got := handoff.TrackingURL(u, "TOKEN"); got != tt.want {
			t.Errorf("%s: %s", tt.base, got)
		}
	}
}

func openedAt(t *testing.T, env *apptest.Env, id uuid.UUID) *time.Time {
	t.Helper()
	var at *time.Time
	if err := env.DB.Pool.QueryRow(context.Background(), `SELECT opened_at FROM applications WHERE id = $1`, id).Scan(&at); err != nil {
		t.Fatal(err)
	}
	return at
}

func TestOpeningTheLinkRecordsAndRedirects(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.WithoutWorkers())
	token := newToken(t)
	appID := linkedApplication(t, env, "UP-9", token)
	merchant := env.Client(t)

	first := merchant.Get("/l/" + token)
	if first.Status != http.StatusSeeOther || first.Location != "https://sandbox.test/apply/UP-9?k=v" {
		t.Fatalf("open: %d %q", first.Status, first.Location)
	}
	if first.Header.Get("Referrer-Policy") != "no-referrer" || first.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("headers: %v", first.Header)
	}
	if first.Header.Get("Set-Cookie") != "" {
		t.Error("opening the link started a session")
	}
	at := openedAt(t, env, appID)
	if at == nil || at.Sub(env.Clock.Now()).Abs() > time.Millisecond {
		t.Fatalf("opened_at %v, want %v", at, env.Clock.Now())
	}

	env.Clock.Advance(time.Hour)
	if again := merchant.Get("/l/" + token); again.Status != http.StatusSeeOther {
		t.Fatalf("second open: %d", again.Status)
	}
	if later := openedAt(t, env, appID); !later.Equal(*at) {
		t.Errorf("opened_at moved from %v to %v; it records the first open", at, later)
	}
	if n := count(t, env, `SELECT count(*) FROM audit_events WHERE subject_kind = 'application' AND subject_id = $1 AND action = 'opened'`, appID); n != 2 {
		t.Errorf("%d opened events, want 2", n)
	}
	if n := count(t, env, `SELECT count(*) FROM audit_events WHERE subject_kind = 'application' AND subject_id = $1 AND action = 'opened' AND details->>'first' = 'true'`, appID); n != 1 {
		t.Errorf("%d first-open events, want 1", n)
	}
}

func TestUnknownOrUnusableTokensAre404(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.WithoutWorkers())
	deleted := newToken(t)
	deletedID := linkedApplication(t, env, "UP-DEL", deleted)
	if _, err := env.DB.Pool.Exec(context.Background(), `UPDATE applications SET deleted_at = now() WHERE id = $1`, deletedID); err != nil {
		t.Fatal(err)
	}
	notLinked := newToken(t)
	notLinkedID := linkedApplication(t, env, "", "")
	if err := env.App.Store.AddOpenToken(context.Background(), nil, notLinkedID, notLinked, env.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	expired := newToken(t)
	expiredID := linkedApplication(t, env, "UP-OLD", newToken(t))
	if err := env.App.Store.AddOpenToken(context.Background(), nil, expiredID, expired, env.Clock.Now().Add(-applications.OpenTokenLifetime-time.Minute)); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, token string }{
		{"unknown", newToken(t)},
		{"malformed", "short"},
		{"bad characters", "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"},
		{"deleted application", deleted},
		{"no link yet", notLinked},
		{"expired", expired},
	}
	for _, tt := range tests {
		res := env.Client(t).Get("/l/" + url.PathEscape(tt.token))
		if res.Status != http.StatusNotFound {
			t.Errorf("%s: status %d", tt.name, res.Status)
		}
	}
	if n := count(t, env, `SELECT count(*) FROM audit_events WHERE action = 'opened'`); n != 0 {
		t.Errorf("%d opens recorded", n)
	}
}

// Tracked links are kept only as hashes, and every e-mail mints its own: a resend's new
// link works, and so does the earlier one until it expires.
func TestOpenTokensAreHashedAndEachEmailHasItsOwn(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.WithoutWorkers())
	first := newToken(t)
	appID := linkedApplication(t, env, "UP-7", first)
	var stored string
	if err := env.DB.Pool.QueryRow(context.Background(), `SELECT string_agg(token_hash, ',') FROM handoff_open_tokens WHERE application_id = $1`, appID).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != applications.HashOpenToken(first) || strings.Contains(stored, first) {
		t.Fatalf("stored %q for token %q: want its hash only", stored, first)
	}
	second := newToken(t)
	if err := env.App.Store.AddOpenToken(context.Background(), nil, appID, second, env.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{first, second} {
		if res := env.Client(t).Get("/l/" + tok); res.Status != http.StatusSeeOther {
			t.Errorf("token %s: %d", tok[:6], res.Status)
		}
	}
	env.Clock.Advance(applications.OpenTokenLifetime + time.Minute)
	if res := env.Client(t).Get("/l/" + first); res.Status != http.StatusNotFound {
		t.Errorf("an expired link: %d, want 404", res.Status)
	}
}
