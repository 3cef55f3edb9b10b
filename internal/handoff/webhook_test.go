package handoff_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/handoff"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
)

const webhookToken = "partner-webhook-token-123"

// linkedApplication inserts an application that has been pushed upstream and
// returns its id; upstreamID may be empty for one not pushed yet.
func linkedApplication(t *testing.T, env *apptest.Env, upstreamID, openToken string) uuid.UUID {
	t.Helper()
	owner, _ := env.CreateUser(t, "owner-"+uuid.NewString()[:8]+"@example.com", models.RoleSalesRep)
	id := uuid.New()
	var upID, token, link *string
	if upstreamID != "" {
		upID = &upstreamID
	}
	if openToken != "" {
		token = &openToken
		l := "https://sandbox.test/apply/" + upstreamID + "?k=v"
		link = &l
	}
	_, err := env.DB.Pool.Exec(context.Background(), `INSERT INTO applications (id, owner_id, status, dba, upstream_application_id, handoff_link)
		VALUES ($1, $2, 'linked', 'Dana''s Donuts', $3, $4)`, id, owner.ID, upID, link)
	if err != nil {
		t.Fatal(err)
	}
	if token != nil {
		if err := env.App.Store.AddOpenToken(context.Background(), nil, id, *token, env.Clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	return id
}

func postWebhook(t *testing.T, env *apptest.Env, body any) int {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	// A fresh client: no session, no CSRF token, like the upstream.
	res := env.Client(t).Do(http.MethodPost, "/webhooks/upstream", strings.NewReader(string(b)), http.Header{"Content-Type": {"application/json"}})
	return res.Status
}

func event(id, status string, created time.Time, token string) map[string]any {
	return map[string]any{"id": id, "status": status, "created": created.UnixMilli(), "token": token}
}

type appStatus struct {
	status *string
	at     *time.Time
}

func upstreamStatus(t *testing.T, env *apptest.Env, id uuid.UUID) appStatus {
	t.Helper()
	var s appStatus
	if err := env.DB.Pool.QueryRow(context.Background(), `SELECT upstream_status, upstream_status_at FROM applications WHERE id = $1`, id).Scan(&s.status, &s.at); err != nil {
		t.Fatal(err)
	}
	return s
}

func count(t *testing.T, env *apptest.Env, query string, args ...any) int {
	t.Helper()
	var n int
	if err := env.DB.Pool.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestWebhookRefusesWrongOrMissingToken(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.WithEnv("PORTAL_UPSTREAM_WEBHOOK_TOKEN", webhookToken), apptest.WithoutWorkers())
	appID := linkedApplication(t, env, "UP-1", "")
	now := time.Now()
	tests := []struct {
		name string
		body any
		want int
	}{
		{"wrong token", event("UP-1", "processing", now, "guess"), http.StatusUnauthorized},
		{"token with a suffix", event("UP-1", "processing", now, webhookToken+"x"), http.StatusUnauthorized},
		{"no token", map[string]any{"id": "UP-1", "status": "processing", "created": now.UnixMilli()}, http.StatusUnauthorized},
		{"not JSON", "just a string", http.StatusBadRequest},
		{"unknown status", event("UP-1", "approvedish", now, webhookToken), http.StatusBadRequest},
		{"no id", event("", "processing", now, webhookToken), http.StatusBadRequest},
		{"no created", map[string]any{"id": "UP-1", "status": "processing", "token": webhookToken}, http.StatusBadRequest},
	}
	for _, tt := range tests {
		if got := postWebhook(t, env, tt.body); got != tt.want {
			t.Errorf("%s: status %d, want %d", tt.name, got, tt.want)
		}
	}
	if n := count(t, env, `SELECT count(*) FROM upstream_status_events`); n != 0 {
		t.Errorf("%d events recorded from refused requests", n)
	}
	if s := upstreamStatus(t, env, appID); s.status != nil {
		t.Errorf("status changed to %q", *s.status)
	}
}

func TestWebhookWithoutConfiguredTokenRefusesEverything(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.WithoutWorkers())
	linkedApplication(t, env, "UP-1", "")
	for _, token := range []string{"", "anything"} {
		if got := postWebhook(t, env, event("UP-1", "processing", time.Now(), token)); got != http.StatusUnauthorized {
			t.Errorf("token %q: status %d", token, got)
		}
	}
	if n := count(t, env, `SELECT count(*) FROM upstream_status_events`); n != 0 {
		t.Errorf("%d events recorded", n)
	}
}

func TestWebhookOrderingAndRepeats(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.WithEnv("PORTAL_UPSTREAM_WEBHOOK_TOKEN", webhookToken), apptest.WithoutWorkers())
	appID := linkedApplication(t, env, "UP-7", "")
	t0 := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	steps := []struct {
		name       string
		status     string
		created    time.Time
		wantStatus string
		wantEvents int
		wantAudit  int
	}{
		{"first event", "inProgress", t0, "inProgress", 1, 1},
		{"newer event", "processing", t0.Add(time.Minute), "processing", 2, 2},
		{"older event arriving late", "requested", t0.Add(-time.Minute), "processing", 3, 3},
		{"repeat of the newest", "processing", t0.Add(time.Minute), "processing", 3, 3},
		{"repeat of the late one", "requested", t0.Add(-time.Minute), "processing", 3, 3},
		{"same instant, another status", "boarded", t0.Add(time.Minute), "processing", 4, 4},
		{"newest", "boarded", t0.Add(time.Hour), "boarded", 5, 5},
	}
	for _, s := range steps {
		if got := postWebhook(t, env, event("UP-7", s.status, s.created, webhookToken)); got != http.StatusNoContent {
			t.Fatalf("%s: status %d", s.name, got)
		}
		st := upstreamStatus(t, env, appID)
		if st.status == nil || *st.status != s.wantStatus {
			t.Errorf("%s: upstream status %v, want %s", s.name, st.status, s.wantStatus)
		}
		if n := count(t, env, `SELECT count(*) FROM upstream_status_events WHERE application_id = $1`, appID); n != s.wantEvents {
			t.Errorf("%s: %d events, want %d", s.name, n, s.wantEvents)
		}
		if n := count(t, env, `SELECT count(*) FROM audit_events WHERE subject_kind = 'application' AND subject_id = $1 AND action = 'upstream_status'`, appID); n != s.wantAudit {
			t.Errorf("%s: %d audit entries, want %d", s.name, n, s.wantAudit)
		}
	}
	st := upstreamStatus(t, env, appID)
	if st.at == nil || !st.at.Equal(t0.Add(time.Hour)) {
		t.Errorf("upstream_status_at %v", st.at)
	}
	// The late event is in the audit trail, marked as not applied.
	if n := count(t, env, `SELECT count(*) FROM audit_events WHERE subject_kind = 'application' AND subject_id = $1 AND action = 'upstream_status'
		AND details->>'status' = 'requested' AND details->>'applied' = 'false'`, appID); n != 1 {
		t.Errorf("audit of the stale event: %d", n)
	}
}

func TestWebhookForUnknownApplicationIsKeptUntilTheIDIsStored(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.WithEnv("PORTAL_UPSTREAM_WEBHOOK_TOKEN", webhookToken), apptest.WithoutWorkers())
	t0 := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	// The same answer as for a known application: nothing to learn from it.
	for _, ev := range []map[string]any{event("UP-LATE", "initiated", t0, webhookToken), event("UP-LATE", "inProgress", t0.Add(time.Second), webhookToken)} {
		if got := postWebhook(t, env, ev); got != http.StatusNoContent {
			t.Fatalf("unknown application: status %d", got)
		}
	}
	appID := linkedApplication(t, env, "", "")
	ctx := context.Background()
	err := pgx.BeginFunc(ctx, env.DB.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE applications SET upstream_application_id = 'UP-LATE' WHERE id = $1`, appID); err != nil {
			return err
		}
		return handoff.NewUpstreamStatusRecorder(applications.NewStore(env.DB.Pool), time.Now).ApplyRecorded(ctx, tx, appID, "UP-LATE", time.Now())
	})
	if err != nil {
		t.Fatal(err)
	}
	if st := upstreamStatus(t, env, appID); st.status == nil || *st.status != "inProgress" {
		t.Fatalf("status after storing the id: %v", st.status)
	}
	if n := count(t, env, `SELECT count(*) FROM audit_events WHERE subject_kind = 'application' AND subject_id = $1 AND action = 'upstream_status'`, appID); n != 2 {
		t.Errorf("%d audit entries, want 2", n)
	}
}

func TestValidUpstreamStatus(t *testing.T) {
	for _, s := range applications.UpstreamStatuses {
		if !applications.ValidUpstreamStatus(s) {
			t.Errorf("%s refused", s)
		}
	}
	for _, s := range []string{"", "Processing", "approved", fmt.Sprint(1)} {
		if applications.ValidUpstreamStatus(s) {
			t.Errorf("%q accepted", s)
		}
	}
}

// The processor announces "initiated" while it answers the portal's start, before the
// push stores the upstream id: an event no application carries yet is expected while an
// application is being started (early, kept quiet), and a surprise otherwise (unmatched).
func TestAnEventBeforeTheIDIsStoredIsEarlyWhileAnApplicationIsStarting(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.WithoutWorkers())
	ctx := context.Background()
	rec := handoff.NewUpstreamStatusRecorder(applications.NewStore(env.DB.Pool), time.Now)
	t0 := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	got, err := rec.Record(ctx, handoff.StatusEvent{UpstreamApplicationID: "UP-NOBODY", Status: "initiated", Created: t0})
	if err != nil || got != handoff.StatusUnmatched {
		t.Fatalf("no application being started: %v %v, want unmatched", got, err)
	}
	starting := linkedApplication(t, env, "", "")
	if _, err := env.DB.Pool.Exec(ctx, `UPDATE applications SET status = 'submitting', submission_count = 1 WHERE id = $1`, starting); err != nil {
		t.Fatal(err)
	}
	got, err = rec.Record(ctx, handoff.StatusEvent{UpstreamApplicationID: "UP-STARTING", Status: "initiated", Created: t0})
	if err != nil || got != handoff.StatusEarly {
		t.Fatalf("an application being started: %v %v, want early", got, err)
	}
}
