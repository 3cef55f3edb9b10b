package accounts_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	upstream "github.com/payportal/portal/internal/upstream/accounts"
)

func TestWrongStaticTokenIs401(t *testing.T) {
	e := newEnv(t, nil, nil)
	c := e.client(t, func(cfg *upstream.Config) { cfg.Token = "wrong" })
	_, err := c.StartApplication(context.Background(), upstream.StartRequest{ExternalApplicationID: newExternalID(), PricingCode: pricingCode})
	var ue *upstream.Error
	if !errors.As(err, &ue) || ue.StatusCode != http.StatusUnauthorized {
		t.Fatalf("err = %v, want 401", err)
	}
	if !upstream.IsPermanent(err) {
		t.Error("401 should be permanent")
	}
	if n := e.sb.APIRequests(); n != 1 {
		t.Errorf("requests = %d, want 1 (a fixed token cannot be refreshed)", n)
	}
}

func TestKeyAndSecretAreExchangedOnce(t *testing.T) {
	e := newEnv(t, nil, nil)
	c := e.client(t, keyed)
	ctx := context.Background()
	if err := c.Authenticate(ctx); err != nil {
		t.Fatalf("authenticate: %v", err)
	}
	for range 3 {
		if _, err := c.StartApplication(ctx, upstream.StartRequest{ExternalApplicationID: newExternalID(), PricingCode: pricingCode}); err != nil {
			t.Fatalf("start: %v", err)
		}
	}
	if n := e.sb.TokensIssued(); n != 1 {
		t.Errorf("tokens issued = %d, want 1", n)
	}
}

func TestWrongSecretFailsAuthenticate(t *testing.T) {
	e := newEnv(t, nil, nil)
	c := e.client(t, func(cfg *upstream.Config) { keyed(cfg); cfg.APISecret = "wrong" })
	err := c.Authenticate(context.Background())
	var ue *upstream.Error
	if !errors.As(err, &ue) || ue.StatusCode != http.StatusUnauthorized || ue.Path != "/auth" {
		t.Fatalf("err = %v, want 401 from /auth", err)
	}
}

func TestTokenRefreshedBeforeExpiry(t *testing.T) {
	e := newEnv(t, nil, nil)
	c := e.client(t, keyed)
	ctx := context.Background()
	start := func() {
		t.Helper()
		if _, err := c.StartApplication(ctx, upstream.StartRequest{ExternalApplicationID: newExternalID(), PricingCode: pricingCode}); err != nil {
			t.Fatalf("start: %v", err)
		}
	}
	start()
	e.clock.Advance(22 * time.Hour)
	start()
	if n := e.sb.TokensIssued(); n != 1 {
		t.Fatalf("after 22 h: tokens issued = %d, want 1", n)
	}
	e.clock.Advance(90 * time.Minute) // 23.5 h: inside the refresh margin, before expiry
	start()
	if n := e.sb.TokensIssued(); n != 2 {
		t.Errorf("after 23.5 h: tokens issued = %d, want 2", n)
	}
	if got := e.waits.All(); len(got) != 0 {
		t.Errorf("waits = %v, want none: no call should have failed", got)
	}
}

func TestTokenRefreshedOnceOn401(t *testing.T) {
	e := newEnv(t, nil, nil)
	c := e.client(t, keyed)
	ctx := context.Background()
	if err := c.Authenticate(ctx); err != nil {
		t.Fatalf("authenticate: %v", err)
	}
	e.sb.RevokeIssuedTokens() // as if the upstream had lost or expired it early
	if _, err := c.StartApplication(ctx, upstream.StartRequest{ExternalApplicationID: newExternalID(), PricingCode: pricingCode}); err != nil {
		t.Fatalf("start after revocation: %v", err)
	}
	if n := e.sb.TokensIssued(); n != 2 {
		t.Errorf("tokens issued = %d, want 2", n)
	}
}

func TestRepeated401IsNotLooped(t *testing.T) {
	var auths atomic.Int32
	// Everything but /auth answers 401, as when the account is suspended.
	wrap := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/auth") {
				auths.Add(1)
				next.ServeHTTP(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"message":"account suspended"}`))
		})
	}
	e := newEnv(t, nil, wrap)
	c := e.client(t, keyed)
	_, err := c.GetLink(context.Background(), "9d7c1a8e-0000-4000-8000-000000000000")
	var ue *upstream.Error
	if !errors.As(err, &ue) || ue.StatusCode != http.StatusUnauthorized || ue.Message != "account suspended" {
		t.Fatalf("err = %v, want 401 account suspended", err)
	}
	if n := auths.Load(); n != 2 {
		t.Errorf("token exchanges = %d, want 2 (first token, one refresh)", n)
	}
}

func TestConfigNeedsOneKindOfCredential(t *testing.T) {
	tests := []struct {
		name string
		cfg  upstream.Config
	}{
		{"none", upstream.Config{BaseURL: "http://x/v2"}},
		{"both", upstream.Config{BaseURL: "http://x/v2", Token: "t", APIKey: "k", APISecret: "s"}},
		{"key without secret", upstream.Config{BaseURL: "http://x/v2", APIKey: "k"}},
		{"relative base URL", upstream.Config{BaseURL: "/v2", Token: "t"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := upstream.New(tt.cfg); err == nil {
				t.Error("New accepted the config")
			}
		})
	}
}
