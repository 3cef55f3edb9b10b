package partnerapi_test

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
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/webhooks"
)

// hookReceiver is the vendor's webhook receiver in the end-to-end run: it checks every
// delivery with the Standard Webhooks reference library (its Go module), as a vendor
// would, never with the portal's signer, and keeps the events that verified.
type hookReceiver struct {
	*httptest.Server
	verifier *standardwebhooks.Webhook
	mu       sync.Mutex
	events   []webhooks.Payload
	refused  []error
}

// subscribe registers an endpoint of the kind's key for every event (as an admin does on
// the webhooks page) and returns its receiver.
func (x *e2e) subscribe(t *testing.T, kind string) *hookReceiver {
	t.Helper()
	r := &hookReceiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		if err := r.verifier.Verify(body, req.Header); err != nil {
			r.refused = append(r.refused, err)
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		var p webhooks.Payload
		if err := json.Unmarshal(body, &p); err != nil || p.ID.String() != req.Header.Get("webhook-id") {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		r.events = append(r.events, p)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.Close)
	form := webhooks.EndpointForm{URL: r.URL + "/payportal", KeyID: x.keyIDs[kind].String()}
	for _, e := range webhooks.Catalogue {
		form.Events = append(form.Events, string(e.Type))
	}
	_, secret, err := x.env.App.Webhooks.Create(context.Background(), x.admin, form)
	if err != nil {
		t.Fatal(err)
	}
	if r.verifier, err = standardwebhooks.NewWebhook(secret); err != nil {
		t.Fatal(err)
	}
	return r
}

// received returns the verified events of type typ about object id, and every refusal.
func (r *hookReceiver) received(typ webhooks.EventType, id uuid.UUID) ([]webhooks.Payload, []error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []webhooks.Payload
	for _, p := range r.events {
		if p.Type == typ && p.Data.ID == id {
			out = append(out, p)
		}
	}
	return out, append([]error(nil), r.refused...)
}

// expectBoarded waits for the application's and the merchant's boarded webhooks, signed
// and verified, and checks what they say; other's receiver (another rep's key) hears
// nothing of them.
func (r *hookReceiver) expectBoarded(t *testing.T, other *hookReceiver, app, merchant uuid.UUID) {
	t.Helper()
	var got []webhooks.Payload
	testutil.Eventually(t, 30*time.Second, "the boarded webhooks", func() (bool, string) {
		a, refused := r.received(webhooks.ApplicationBoarded, app)
		m, _ := r.received(webhooks.MerchantBoarded, merchant)
		if len(refused) > 0 {
			t.Fatalf("the reference library refused a delivery: %v", refused)
		}
		got = append(a, m...)
		return len(a) == 1 && len(m) == 1, ""
	})
	application, merchantNews := got[0].Data, got[1].Data
	if application.State != "boarded" || application.Object != webhooks.ObjectApplication || application.Version < 1 ||
		merchantNews.State != "boarded" || merchantNews.ApplicationID == nil || *merchantNews.ApplicationID != app {
		t.Fatalf("boarded webhooks: %+v / %+v", application, merchantNews)
	}
	// The portal's own news comes once each. The processor's "accepted" may not come at
	// all: its own webhooks are not ordered, and news older than what the application
	// shows (boarded) is not passed on.
	for _, typ := range []webhooks.EventType{webhooks.ApplicationSubmitted, webhooks.ApplicationLinked} {
		if news, _ := r.received(typ, app); len(news) != 1 {
			t.Errorf("%d %s webhooks, want 1", len(news), typ)
		}
	}
	if news, _ := r.received(webhooks.ApplicationAccepted, app); len(news) > 1 {
		t.Errorf("%d %s webhooks, want at most 1", len(news), webhooks.ApplicationAccepted)
	}
	if news, _ := other.received(webhooks.ApplicationBoarded, app); len(news) != 0 {
		t.Errorf("another rep's endpoint heard of the application")
	}
}
