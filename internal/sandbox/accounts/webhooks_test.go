package accounts_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
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

// receiver is a webhook endpoint that refuses its first refuse deliveries
// (-1: all of them) and reports every call.
func receiver(t *testing.T, refuse int32) (string, <-chan hook, *atomic.Int32) {
	t.Helper()
	got := make(chan hook, 64)
	var calls atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		var h hook
		if err := json.NewDecoder(r.Body).Decode(&h); err != nil || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		if refuse < 0 || n <= refuse {
			h.Status = "refused:" + h.Status
			got <- h
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		got <- h
	}))
	t.Cleanup(ts.Close)
	return ts.URL, got, &calls
}

// next waits for the next webhook call.
func next(t *testing.T, got <-chan hook) hook {
	t.Helper()
	select {
	case h := <-got:
		return h
	case <-time.After(5 * time.Second):
		t.Fatal("no webhook call")
	}
	return hook{}
}

// waitFor waits until cond holds: the sandbox stores the outcome of a
// webhook attempt just after the receiver has answered.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// retryDue waits until the only pending delivery has made attempts
// attempts and is due again, and returns when.
func retryDue(t *testing.T, s *testSandbox, attempts int) time.Time {
	t.Helper()
	var due time.Time
	waitFor(t, "the retry to be planned", func() bool {
		p := s.PendingWebhooks()
		if len(p) == 1 && p[0].Attempts == attempts && p[0].Due.After(s.clock.Now()) {
			due = p[0].Due
			return true
		}
		return false
	})
	return due
}

func TestWebhooksAnnounceEveryChange(t *testing.T) {
	url, got, _ := receiver(t, 0)
	s := newSandbox(t, func(o *sandbox.Options) { o.WebhookURL, o.WebhookToken = url, "partner-key" })
	id := s.start(t, nil)
	s.link(t, id)
	if err := s.Decline(id); err != nil {
		t.Fatal(err)
	}
	seen := map[string]hook{}
	for len(seen) < 3 {
		h := next(t, got)
		seen[h.Status] = h
	}
	for _, st := range []string{"initiated", "requested", "declined"} {
		h, ok := seen[st]
		if !ok || h.ID != id || h.Token != "partner-key" || h.Created != t0.UnixMilli() {
			t.Errorf("%s webhook = %+v", st, h)
		}
	}
	waitFor(t, "the deliveries to be done", func() bool { return len(s.PendingWebhooks()) == 0 })
}

// TestWebhookRetriesForADay follows a delivery the receiver always refuses
// through the default schedule on the sandbox clock: ten attempts, the
// waits growing from 30 s to 8 h, the last one about 23.7 hours after the
// change, then abandoned.
func TestWebhookRetriesForADay(t *testing.T) {
	url, got, calls := receiver(t, -1)
	s := newSandbox(t, func(o *sandbox.Options) { o.WebhookURL = url })
	s.start(t, nil)
	if h := next(t, got); h.Status != "refused:initiated" {
		t.Fatalf("first attempt = %+v", h)
	}
	var total time.Duration
	for i, want := range sandbox.DefaultWebhookRetryDelays {
		due := retryDue(t, s, i+1)
		if wait := due.Sub(s.clock.Now()); wait != want {
			t.Fatalf("wait before attempt %d = %v, want %v", i+2, wait, want)
		}
		// Nothing is sent before the retry is due.
		s.clock.Advance(want - time.Second)
		if n := calls.Load(); n != int32(i+1) {
			t.Fatalf("attempt %d sent %v early", i+2, time.Second)
		}
		s.clock.Advance(time.Second)
		total += want
		next(t, got)
	}
	if total < 23*time.Hour || total > 25*time.Hour {
		t.Errorf("retries span %v, want about a day", total)
	}
	waitFor(t, "the delivery to be abandoned", func() bool { return len(s.PendingWebhooks()) == 0 })
	s.clock.Advance(24 * time.Hour)
	if n := calls.Load(); n != int32(len(sandbox.DefaultWebhookRetryDelays)+1) {
		t.Errorf("attempts = %d, want %d", n, len(sandbox.DefaultWebhookRetryDelays)+1)
	}
}

// TestWebhookSurvivesRestart: a delivery waiting for its retry is kept in
// the store and sent after a restart.
func TestWebhookSurvivesRestart(t *testing.T) {
	url, got, _ := receiver(t, 1)
	state := filepath.Join(t.TempDir(), "state.db")
	first := newSandbox(t, func(o *sandbox.Options) { o.WebhookURL, o.StateFile = url, state })
	id := first.start(t, nil)
	if h := next(t, got); h.Status != "refused:initiated" {
		t.Fatalf("first attempt = %+v", h)
	}
	retryDue(t, first, 1)
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second := newSandbox(t, func(o *sandbox.Options) { o.WebhookURL, o.StateFile, o.Clock = url, state, first.clock })
	if n := len(second.PendingWebhooks()); n != 1 {
		t.Fatalf("pending after restart = %d, want 1", n)
	}
	second.clock.Advance(30 * time.Second)
	if h := next(t, got); h.Status != "initiated" || h.ID != id {
		t.Errorf("retry after restart = %+v", h)
	}
}

func TestNoWebhookWithoutURL(t *testing.T) {
	s := newSandbox(t, nil)
	id := s.start(t, nil)
	s.link(t, id)
	if a, _ := s.Application(id); len(a.History) != 2 {
		t.Errorf("history = %v, want initiated and requested", a.History)
	}
	if n := len(s.PendingWebhooks()); n != 0 {
		t.Errorf("pending deliveries = %d, want none", n)
	}
}
