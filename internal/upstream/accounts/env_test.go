package accounts_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/uuid"

	sandbox "github.com/payportal/portal/internal/sandbox/accounts"
	"github.com/payportal/portal/internal/testutil"
	upstream "github.com/payportal/portal/internal/upstream/accounts"
)

// Credentials the test sandboxes accept.
const (
	staticToken    = "static-test-token"
	apiKey         = "test-key"
	apiSecret      = "test-secret-value"
	pricingCode    = "PRICING-STD"
	altPricingCode = "PRICING-ALT"
)

// t0 is the start of every test's manual clock.
var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// env is a sandbox on a real socket plus what tests need to steer it.
type env struct {
	sb    *sandbox.Server
	ts    *httptest.Server
	clock *sandbox.ManualClock
	waits *testutil.Waits
}

// newEnv starts a sandbox behind wrap (nil for none).
func newEnv(t *testing.T, mutate func(*sandbox.Options), wrap func(http.Handler) http.Handler) *env {
	t.Helper()
	clock := sandbox.NewManualClock(t0)
	opts := sandbox.Options{
		Tokens:       []string{staticToken},
		APIKeys:      map[string]string{apiKey: apiSecret},
		PricingCodes: []string{pricingCode, altPricingCode},
		ObjectDir:    t.TempDir(),
		Clock:        clock,
		Seed:         42,
	}
	if mutate != nil {
		mutate(&opts)
	}
	sb, err := sandbox.New(opts)
	if err != nil {
		t.Fatalf("sandbox.New: %v", err)
	}
	h := sb.Handler()
	if wrap != nil {
		h = wrap(h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.Close()
		_ = sb.Close()
	})
	if err := sb.SetPublicBaseURL(ts.URL); err != nil {
		t.Fatalf("SetPublicBaseURL: %v", err)
	}
	return &env{sb: sb, ts: ts, clock: clock, waits: &testutil.Waits{}}
}

// client builds a client with a static token, the sandbox's clock, tiny
// backoffs and recorded (not slept) waits; mutate adjusts the config.
func (e *env) client(t *testing.T, mutate func(*upstream.Config)) *upstream.Client {
	t.Helper()
	cfg := upstream.Config{
		BaseURL:        e.ts.URL + "/v2",
		Token:          staticToken,
		Timeout:        5 * time.Second,
		MaxAttempts:    4,
		RetryBaseDelay: time.Millisecond,
		RetryMaxDelay:  4 * time.Millisecond,
		MaxRetryAfter:  2 * time.Second,
		Now:            e.clock.Now,
		Sleep:          e.waits.Sleep,
	}
	if mutate != nil {
		mutate(&cfg)
	}
	c, err := upstream.New(cfg)
	if err != nil {
		t.Fatalf("upstream.New: %v", err)
	}
	return c
}

// keyed switches a config to API key and secret.
func keyed(cfg *upstream.Config) {
	cfg.Token, cfg.APIKey, cfg.APISecret = "", apiKey, apiSecret
}

// newExternalID returns a fresh externalApplicationId.
func newExternalID() string { return uuid.NewString() }
