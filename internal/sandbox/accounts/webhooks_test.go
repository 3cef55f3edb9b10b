package accounts_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	sandbox "github.com/payportal/portal/internal/sandbox/accounts"
)

type hook struct {
	ID      string `json:"id"`
	Status  string `json:"status"`
	Created int64  `json:"created"`
	Token   string `json:"token"`
}

// receiver is a webhook endpoint that refuses its first delivery.
func receiver(t *testing.T) (string, <-chan hook, *atomic.Int32) {
	t.Helper()
	got := make(chan hook, 16)
	var calls atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		var h hook
		if err := json.NewDecoder(r.Body).Decode(&h); err != nil || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		got <- h
	}))
	t.Cleanup(ts.Close)
	return ts.URL, got, &calls
}

func TestWebhooksAnnounceEveryChangeWithRetries(t *testing.T) {
	url, got, calls := receiver(t)
	s := newSandbox(t, func(o *sandbox.Options) {
		o.WebhookURL, o.WebhookToken = url, "partner-key"
		o.WebhookRetryDelays = []time.Duration{time.Millisecond, time.Millisecond}
	})
	id := s.start(t, nil)
	s.link(t, id)
	if err := s.Decline(id); err != nil {
		t.Fatal(err)
	}

	seen := map[string]hook{}
	for len(seen) < 3 {
		select {
		case h := <-got:
			seen[h.Status] = h
		case <-time.After(5 * time.Second):
			t.Fatalf("webhooks received: %v, want initiated, requested, declined", seen)
		}
	}
	for _, st := range []string{"initiated", "requested", "declined"} {
		h, ok := seen[st]
		if !ok || h.ID != id || h.Token != "partner-key" || h.Created != t0.UnixMilli() {
			t.Errorf("%s webhook = %+v", st, h)
		}
	}
	if n := calls.Load(); n != 4 {
		t.Errorf("deliveries = %d, want 4 (one refused and retried)", n)
	}
}

func TestNoWebhookWithoutURL(t *testing.T) {
	s := newSandbox(t, nil)
	id := s.start(t, nil)
	s.link(t, id)
	if a, _ := s.Application(id); len(a.History) != 2 {
		t.Errorf("history = %v, want initiated and requested", a.History)
	}
}
