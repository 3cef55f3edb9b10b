package apptest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/webhooks"
)

// showcaseHooks are the partners' webhook endpoints of the showcase: Salon Pro's (its
// rep's key, every event) and the reporting export's (reseller-wide, payments only),
// both delivering for real to a receiver in the test while the showcase is seeded.
type showcaseHooks struct {
	receiver    *httptest.Server
	salon, feed uuid.UUID
}

// webhookEndpoints registers the endpoints before anything happens, so the seeding's
// boardings, declines and payments are delivered and logged. Salon Pro's receiver
// refuses its first payment once (503), so its log shows a retry.
func (s *Showcase) webhookEndpoints(t testing.TB, admin *models.User) *showcaseHooks {
	t.Helper()
	var mu sync.Mutex
	refused := false
	h := &showcaseHooks{}
	h.receiver = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p webhooks.Payload
		_ = json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&p)
		mu.Lock()
		defer mu.Unlock()
		if r.URL.Path == "/salon" && p.Type == webhooks.PaymentApproved && !refused {
			refused = true
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(h.receiver.Close)
	var all []string
	for _, e := range webhooks.Catalogue {
		all = append(all, string(e.Type))
	}
	h.salon = s.endpoint(t, admin, "Salon Pro", webhooks.EndpointForm{URL: h.receiver.URL + "/salon", Description: "Salon Pro production", Events: all})
	h.feed = s.endpoint(t, admin, "Reporting export", webhooks.EndpointForm{URL: h.receiver.URL + "/feed",
		Events: []string{string(webhooks.PaymentApproved), string(webhooks.PaymentRefunded), string(webhooks.PaymentVoided)}})
	return h
}

// endpoint registers an endpoint for the key named keyName.
func (s *Showcase) endpoint(t testing.TB, admin *models.User, keyName string, form webhooks.EndpointForm) uuid.UUID {
	t.Helper()
	var key uuid.UUID
	if err := s.Env.DB.Pool.QueryRow(context.Background(), `SELECT id FROM api_keys WHERE name = $1`, keyName).Scan(&key); err != nil {
		t.Fatalf("the API key %q: %v", keyName, err)
	}
	form.KeyID = key.String()
	e, _, err := s.Env.App.Webhooks.Create(context.Background(), admin, form)
	if err != nil {
		t.Fatalf("register a webhook endpoint: %v", err)
	}
	return e.ID
}

// settle waits for every delivery, then gives the endpoints fixed addresses (the
// receiver's port changes every run; the pages must read the same) and shows Salon Pro's
// as the portal leaves an endpoint that failed for three days: disabled, with its banner.
func (h *showcaseHooks) settle(t testing.TB, s *Showcase) {
	t.Helper()
	ctx := context.Background()
	testutil.Eventually(t, 60*time.Second, "the showcase's webhooks delivered", func() (bool, string) {
		var pending int
		err := s.Env.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'`).Scan(&pending)
		return err == nil && pending == 0, ""
	})
	now := s.Env.Clock.Now()
	for id, address := range map[uuid.UUID]string{h.salon: "https://hooks.salonpro.example/payportal/events", h.feed: "https://reports.example.com/webhooks"} {
		if _, err := s.Env.DB.Pool.Exec(ctx, `UPDATE webhook_endpoints SET url = $2 WHERE id = $1`, id, address); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Env.DB.Pool.Exec(ctx, `UPDATE webhook_endpoints SET disabled_at = $2, failing_since = $3 WHERE id = $1`,
		h.salon, now, now.Add(-webhooks.RetryWindow)); err != nil {
		t.Fatal(err)
	}
	s.WebhookEndpoint = h.salon
	if err := s.Env.DB.Pool.QueryRow(ctx, `SELECT d.id FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
		WHERE d.endpoint_id = $1 ORDER BY d.attempts DESC, ev.type LIMIT 1`, h.salon).Scan(&s.WebhookDelivery); err != nil {
		t.Fatalf("no delivery to the showcase's endpoint: %v", err)
	}
}
