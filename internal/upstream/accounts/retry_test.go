package accounts_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	sandbox "github.com/payportal/portal/internal/sandbox/accounts"
	upstream "github.com/payportal/portal/internal/upstream/accounts"
)

func TestTransientFailuresAreRetried(t *testing.T) {
	e := newEnv(t, nil, nil)
	c := e.client(t, nil)
	e.sb.FailNext(http.StatusServiceUnavailable, http.StatusTooManyRequests, 0, http.StatusGatewayTimeout)
	req := upstream.StartRequest{ExternalApplicationID: newExternalID(), PricingCode: pricingCode}
	if _, err := c.StartApplication(context.Background(), req); err == nil {
		t.Fatal("start succeeded with 4 attempts all failing")
	} else if !upstream.IsTemporary(err) {
		t.Errorf("err = %v, want temporary", err)
	}
	if n := e.sb.APIRequests(); n != 4 {
		t.Errorf("requests = %d, want MaxAttempts = 4", n)
	}
	waits := e.waits.All()
	if len(waits) != 3 || waits[1] != time.Second {
		t.Errorf("waits = %v, want 3 with the 429's Retry-After of 1s second", waits)
	}
	// The next attempt has no scripted fault left and succeeds.
	if _, err := c.StartApplication(context.Background(), req); err != nil {
		t.Fatalf("start: %v", err)
	}
}

func TestRetryAfterIsCapped(t *testing.T) {
	e := newEnv(t, func(o *sandbox.Options) { o.Faults.RetryAfter = time.Hour }, nil)
	c := e.client(t, nil)
	e.sb.FailNext(http.StatusTooManyRequests)
	if _, err := c.GetLink(context.Background(), mustStart(t, e, c)); err != nil {
		t.Fatalf("get link: %v", err)
	}
	if waits := e.waits.All(); len(waits) != 1 || waits[0] != 2*time.Second {
		t.Errorf("waits = %v, want [2s] (MaxRetryAfter)", waits)
	}
}

func mustStart(t *testing.T, e *env, c *upstream.Client) string {
	t.Helper()
	id, err := c.StartApplication(context.Background(), upstream.StartRequest{ExternalApplicationID: newExternalID(), PricingCode: pricingCode})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	return id
}

func TestPermanentFailuresAreNotRetried(t *testing.T) {
	e := newEnv(t, nil, nil)
	c := e.client(t, nil)
	id := mustStart(t, e, c)
	before := e.sb.APIRequests()
	e.sb.FailNext(http.StatusInternalServerError)
	err := c.PatchApplication(context.Background(), id, upstream.ApplicationData{Contact: &upstream.Contact{Name: "Ada"}})
	if !upstream.IsTemporary(err) {
		t.Errorf("500: err = %v, want temporary for the caller", err)
	}
	if n := e.sb.APIRequests() - before; n != 1 {
		t.Errorf("requests = %d, want 1 (500 is not retried in the call)", n)
	}
}

func TestFileMetadataPostRetriesOnlyWhenUnprocessed(t *testing.T) {
	content := []byte("%PDF")
	tests := []struct {
		name     string
		fail     int
		wantErr  bool
		requests int
	}{
		{"503 is retried", http.StatusServiceUnavailable, false, 2},
		{"429 is retried", http.StatusTooManyRequests, false, 2},
		{"502 is returned", http.StatusBadGateway, true, 1},
		{"504 is returned", http.StatusGatewayTimeout, true, 1},
		{"dropped after sending is returned", 0, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, nil, nil)
			c := e.client(t, nil)
			id := mustStart(t, e, c)
			before := e.sb.APIRequests()
			e.sb.FailNext(tt.fail)
			_, err := c.CreateFile(context.Background(), id, pdfMeta(content))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr && !upstream.IsTemporary(err) {
				t.Errorf("err = %v, want temporary", err)
			}
			if n := e.sb.APIRequests() - before; n != tt.requests {
				t.Errorf("requests = %d, want %d", n, tt.requests)
			}
		})
	}
}

func TestFlowSurvivesRandomFaults(t *testing.T) {
	e := newEnv(t, func(o *sandbox.Options) {
		o.Faults = sandbox.Faults{ErrorRate: 0.3, DropRate: 0.1}
	}, nil)
	c := e.client(t, func(cfg *upstream.Config) { keyed(cfg); cfg.MaxAttempts = 12 })
	ctx := context.Background()
	for range 10 {
		id, err := c.StartApplication(ctx, upstream.StartRequest{ExternalApplicationID: newExternalID(), PricingCode: pricingCode})
		if err != nil {
			t.Fatalf("start: %v", err)
		}
		if err := c.PatchApplication(ctx, id, upstream.ApplicationData{Contact: &upstream.Contact{Name: "Ada"}}); err != nil {
			t.Fatalf("patch: %v", err)
		}
		if _, err := c.CreateLink(ctx, id); err != nil {
			t.Fatalf("link: %v", err)
		}
	}
	if n := e.sb.StartedCount(); n != 10 {
		t.Errorf("started = %d, want 10: retried starts must not duplicate", n)
	}
	if len(e.waits.All()) == 0 {
		t.Error("no retries happened: the faults were not injected")
	}
}

func TestAttemptTimeout(t *testing.T) {
	e := newEnv(t, func(o *sandbox.Options) { o.Faults.Latency = 2 * time.Second }, nil)
	c := e.client(t, func(cfg *upstream.Config) { cfg.Timeout = 20 * time.Millisecond; cfg.MaxAttempts = 2 })
	_, err := c.GetLink(context.Background(), "9d7c1a8e-0000-4000-8000-000000000000")
	if !upstream.IsTemporary(err) {
		t.Fatalf("err = %v, want temporary", err)
	}
	if len(e.waits.All()) != 1 {
		t.Errorf("waits = %v, want one retry", e.waits.All())
	}
}

func TestCancelledContextStops(t *testing.T) {
	e := newEnv(t, nil, nil)
	c := e.client(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.GetLink(ctx, "9d7c1a8e-0000-4000-8000-000000000000")
	if !errors.Is(err, context.Canceled) || upstream.IsTemporary(err) {
		t.Errorf("err = %v, want context.Canceled, not temporary", err)
	}
}
