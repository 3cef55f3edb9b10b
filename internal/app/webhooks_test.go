package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/apikeys"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
	"github.com/payportal/portal/internal/webhooks"
)

// news lists the events written for an object, oldest first, as "type state version".
func news(t *testing.T, env *apptest.Env, id uuid.UUID) []webhooks.Payload {
	t.Helper()
	rows, err := env.DB.Pool.Query(context.Background(), `SELECT body FROM webhook_events WHERE object_id = $1 ORDER BY object_version`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []webhooks.Payload
	for rows.Next() {
		var body string
		var p webhooks.Payload
		if err := rows.Scan(&body); err != nil || json.Unmarshal([]byte(body), &p) != nil {
			t.Fatalf("event %q: %v", body, err)
		}
		out = append(out, p)
	}
	return out
}

// The processor's news and the merchants room's changes reach partners through the
// announcers wired in internal/app: each state shown once, stale news not at all,
// boarded once whatever follows, the merchant's boarding and suspension with its state.
func TestRoomsAnnounceTheirNews(t *testing.T) {
	env := apptest.New(t, apptest.WithEnv("PORTAL_UPSTREAM_WEBHOOK_TOKEN", "hook-token"))
	ctx := context.Background()
	admin, _ := env.CreateUser(t, "ada@example.com", models.RoleAdmin)
	rep, _ := env.CreateUser(t, "rita@example.com", models.RoleSalesRep)
	key, _, err := env.App.APIKeys.Create(ctx, admin, apikeys.NewKey{Name: "Salon Pro", Scope: apikeys.ScopeRep, RepID: rep.ID.String(), Access: apikeys.AccessRead})
	if err != nil {
		t.Fatal(err)
	}
	form := webhooks.EndpointForm{URL: "http://127.0.0.1:9/hooks", KeyID: key.ID.String()}
	for _, e := range webhooks.Catalogue {
		form.Events = append(form.Events, string(e.Type))
	}
	if _, _, err := env.App.Webhooks.Create(ctx, admin, form); err != nil {
		t.Fatal(err)
	}

	upID, app, now := uuid.NewString(), uuid.New(), time.Now()
	if _, err := env.DB.Pool.Exec(ctx, `INSERT INTO applications (id, owner_id, status, legal_name, dba, upstream_application_id, linked_at)
		VALUES ($1, $2, 'linked', 'Corner Cafe LLC', 'Corner Cafe', $3, $4)`, app, rep.ID, upID, now); err != nil {
		t.Fatal(err)
	}
	status := func(s string, at time.Time) {
		body, _ := json.Marshal(map[string]any{"id": upID, "status": s, "created": at.UnixMilli(), "token": "hook-token"})
		res, err := http.Post(env.URL+"/webhooks/upstream", "application/json", bytes.NewReader(body))
		if err != nil || res.StatusCode != http.StatusNoContent {
			t.Fatalf("status %s: %v %v", s, err, res)
		}
		res.Body.Close()
	}
	status("inProgress", now.Add(1*time.Second))
	status("processing", now.Add(2*time.Second))
	status("processingPending", now.Add(1500*time.Millisecond)) // older than what shows: stale
	status("boarded", now.Add(3*time.Second))
	status("installed", now.Add(4*time.Second))

	var got []string
	for _, p := range news(t, env, app) {
		got = append(got, string(p.Type)+" "+p.Data.State)
	}
	want := []string{"application.opened with_merchant", "application.accepted in_review", "application.boarded boarded"}
	if !slices.Equal(got, want) {
		t.Fatalf("application's events %q, want %q", got, want)
	}

	merchant, ok, err := env.App.Merchants.Store().IDOfApplication(ctx, app)
	if err != nil || !ok {
		t.Fatalf("no merchant: %v", err)
	}
	if err := env.App.Merchants.Suspend(ctx, admin, merchant, "Chargebacks"); err != nil {
		t.Fatal(err)
	}
	if err := env.App.Merchants.Resume(ctx, admin, merchant); err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, p := range news(t, env, merchant) {
		if p.Data.Suspended == nil || p.Data.ApplicationID == nil || *p.Data.ApplicationID != app {
			t.Errorf("merchant payload %+v", p.Data)
			continue
		}
		got = append(got, string(p.Type)+" "+p.Data.State+" "+map[bool]string{true: "suspended", false: "running"}[*p.Data.Suspended])
	}
	want = []string{"merchant.boarded boarded running", "merchant.suspended boarded suspended", "merchant.resumed boarded running"}
	if !slices.Equal(got, want) {
		t.Fatalf("merchant's events %q, want %q", got, want)
	}
}
