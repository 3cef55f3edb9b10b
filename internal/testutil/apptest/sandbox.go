package apptest

import (
	"context"
	"testing"
	"time"

	"github.com/payportal/portal/internal/app"
	"github.com/payportal/portal/internal/sandbox"
	"github.com/payportal/portal/internal/sandbox/accounts"
	"github.com/payportal/portal/internal/sandbox/payments"
	upstream "github.com/payportal/portal/internal/upstream/accounts"
)

// sandboxSettings asks for a sandbox upstream; configure adjusts its options.
type sandboxSettings struct {
	configure func(*accounts.Options)
	// payments adjusts area B's options (WithPaymentsSandbox).
	payments func(*payments.Options)
}

// WithSandbox starts a sandbox upstream on its own port (so every call crosses
// a real socket, as with the real upstream) and points the portal at it:
// PORTAL_UPSTREAM_MODE=remote with a fresh token, and the sandbox's status
// webhooks sent to the portal with a shared token. configure, when not nil,
// adjusts the sandbox's options (faults, pricing codes, answer shapes). The
// portal's upstream client retries quickly, so injected faults cost little
// time. Areas B and C are the sandbox's too, and its admin API (with a fresh
// admin token, unless configure sets one) hands over boarded merchants'
// credentials and takes the pricing codes of models as they are saved.
// env.Sandbox.Server is area A, env.Sandbox.Root the sandbox server,
// for their test helpers. As before pricing codes were issued, the sandbox
// accepts any pricing code unless configure sets PricingCodes, and it makes
// no automatic underwriting decision unless configure sets a
// UnderwritingDelay: tests move applications themselves.
func WithSandbox(configure func(*accounts.Options)) Option {
	return func(s *settings) {
		if s.sandbox == nil {
			s.sandbox = &sandboxSettings{}
		}
		s.sandbox.configure = configure
	}
}

// WithPaymentsSandbox starts the sandbox (as WithSandbox(nil) does, unless
// WithSandbox comes too) with area B's options adjusted by configure: the
// rate limit, the cut-off, the processor-timeout delay.
func WithPaymentsSandbox(configure func(*payments.Options)) Option {
	return func(s *settings) {
		if s.sandbox == nil {
			s.sandbox = &sandboxSettings{}
		}
		s.sandbox.payments = configure
	}
}

// startSandbox starts the sandbox asked for, if any, and returns it with the
// upstream client the portal should use.
func (s *settings) startSandbox(t testing.TB, portalURL string) (*app.RunningSandbox, *upstream.Client) {
	t.Helper()
	if s.sandbox == nil {
		return nil, nil
	}
	token, webhookToken := randomKey(), randomKey()
	opts := accounts.Options{
		Tokens: []string{token},
		// Tests move applications by hand unless they ask for underwriting.
		UnderwritingDelay: -1,
		WebhookURL:        portalURL + "/webhooks/upstream",
		WebhookToken:      webhookToken,
		// Failed webhook deliveries (the portal stopping first) are not retried
		// for long.
		WebhookRetryDelays: []time.Duration{50 * time.Millisecond, 200 * time.Millisecond},
		Logger:             s.logger(),
	}
	if s.terminals != nil {
		opts.Clock = s.terminals
	}
	if s.sandbox.configure != nil {
		s.sandbox.configure(&opts)
	}
	if opts.AdminToken == "" {
		opts.AdminToken = randomKey()
	}
	sopts := sandbox.AccountsOnly(opts)
	if s.sandbox.payments != nil {
		s.sandbox.payments(&sopts.PaymentsOptions)
	}
	rs, err := app.StartSandboxServer("127.0.0.1:0", sopts)
	if err != nil {
		t.Fatalf("start sandbox: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = rs.Close(ctx)
	})
	baseURL := rs.BaseURL
	s.vars["PORTAL_UPSTREAM_MODE"] = "remote"
	s.vars["PORTAL_UPSTREAM_BASE_URL"] = baseURL
	s.vars["PORTAL_UPSTREAM_TOKEN"] = token
	s.vars["PORTAL_UPSTREAM_WEBHOOK_TOKEN"] = webhookToken
	// A rehearsal: areas B and C are the sandbox's, which also hands over
	// credentials and takes pricing codes through its admin API.
	s.vars["PORTAL_SANDBOX_ADMIN_URL"] = rs.URL
	s.vars["PORTAL_SANDBOX_ADMIN_TOKEN"] = opts.AdminToken
	s.vars["PORTAL_PAYMENTS_BASE_URL"] = rs.URL + payments.DefaultBasePath
	s.vars["PORTAL_TERMINALS_BASE_URL"] = rs.URL
	client, err := upstream.New(upstream.Config{
		BaseURL: baseURL, Token: token, Timeout: 10 * time.Second, Logger: s.logger(),
		RetryBaseDelay: 5 * time.Millisecond, RetryMaxDelay: 50 * time.Millisecond, MaxRetryAfter: 20 * time.Millisecond,
	})
	if err != nil {
		t.Fatalf("upstream client: %v", err)
	}
	return rs, client
}
