package app

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/payportal/portal/internal/config"
	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/sandbox"
	"github.com/payportal/portal/internal/sandbox/accounts"
	"github.com/payportal/portal/internal/sandbox/kit"
	"github.com/payportal/portal/internal/sandbox/payments"
	upstream "github.com/payportal/portal/internal/upstream/accounts"
)

// NewUpstreamClient builds the typed client of the upstream account
// application API from the configuration.
func NewUpstreamClient(cfg config.UpstreamConfig, log *slog.Logger, now func() time.Time) (*upstream.Client, error) {
	return upstream.New(upstream.Config{
		BaseURL:   cfg.BaseURL,
		Token:     cfg.Token,
		APIKey:    cfg.APIKey,
		APISecret: cfg.APISecret,
		Timeout:   cfg.Timeout,
		Logger:    log.With("component", "upstream"),
		Now:       now,
	})
}

// SandboxOptions maps the sandbox settings to the sandbox server's options:
// every PORTAL_SANDBOX_* setting of the configuration.
func SandboxOptions(cfg config.SandboxConfig, log *slog.Logger) sandbox.Options {
	opts := sandbox.Options{
		PublicBaseURL: cfg.PublicURL,
		AdminToken:    cfg.AdminToken,
		Faults: kit.Faults{
			Latency: cfg.Latency, LatencyJitter: cfg.LatencyJitter, ErrorRate: cfg.ErrorRate,
			DropRate: cfg.DropRate, ActThenDropRate: cfg.ActThenDropRate, RetryAfter: cfg.RetryAfter,
		},
		Seed:   cfg.Seed,
		Logger: log.With("component", "sandbox"),
		Accounts: accounts.Options{
			BasePath:           cfg.BasePath,
			Tokens:             cfg.Tokens,
			APIKeys:            cfg.APIKeys,
			TokenLifetime:      cfg.TokenLifetime,
			PricingCodes:       cfg.PricingCodes,
			UnderwritingDelay:  cfg.UnderwritingDelay,
			WebhookURL:         cfg.WebhookURL,
			WebhookToken:       cfg.WebhookToken,
			WebhookRetryDelays: cfg.WebhookRetryDelays,
			MaxFileSize:        cfg.MaxFileSize,
			Faults:             accounts.Faults{URLLifetime: cfg.URLLifetime},
			Compat:             accounts.Compat{OmitPresignedURL: cfg.OmitURL, ExpAtSeconds: cfg.ExpAtSeconds},
		},
	}
	if cfg.ManualClock {
		opts.Clock = kit.NewManualClock(time.Now().UTC().Truncate(time.Second))
	}
	if cfg.DataDir != "" {
		opts.StateFile = filepath.Join(cfg.DataDir, "state.db")
		opts.Accounts.ObjectDir = filepath.Join(cfg.DataDir, "objects")
		opts.Accounts.ImportStateFile = filepath.Join(cfg.DataDir, "state.json")
	}
	return opts
}

// RunningSandbox is a sandbox served on its own listener.
type RunningSandbox struct {
	// Root is the sandbox server with every area.
	Root *sandbox.Server
	// Server is area A, the account application API, kept under this name
	// for the portal's tests and their helpers (FileSHA256, StartedCount...).
	Server *accounts.Server
	URL    string // scheme://host:port
	// BaseURL is area A's API base address: URL and the base path.
	BaseURL string
	http    *http.Server
}

// Close stops serving and closes the sandbox (its webhook deliveries stop;
// undelivered ones are kept for the next start).
func (r *RunningSandbox) Close(ctx context.Context) error {
	return errors.Join(r.http.Shutdown(ctx), r.Root.Close())
}

// StartSandbox serves area A alone from its options, as the portal's tests
// did before the sandbox server: the shared settings among them (faults,
// clock, admin token, public URL, seed, logger) become the server's.
func StartSandbox(listenAddr string, opts accounts.Options) (*RunningSandbox, error) {
	return StartSandboxServer(listenAddr, sandbox.AccountsOnly(opts))
}

// StartSandboxServer serves the sandbox server on listenAddr. The sandbox
// gets its own port, so links, uploads and webhooks cross a real socket as
// they would with the real upstream.
func StartSandboxServer(listenAddr string, opts sandbox.Options) (*RunningSandbox, error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(context.Background(), "tcp", listenAddr)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	sb, err := sandbox.New(opts)
	if err != nil {
		_ = ln.Close()
		return nil, err
	}
	base := "http://" + ln.Addr().String()
	if opts.PublicBaseURL != "" {
		base = strings.TrimSuffix(opts.PublicBaseURL, "/")
	} else if err := sb.SetPublicBaseURL(base); err != nil {
		_ = ln.Close()
		_ = sb.Close()
		return nil, err
	}
	srv := &http.Server{Handler: sb.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return &RunningSandbox{Root: sb, Server: sb.Accounts(), URL: base, BaseURL: base + sb.AccountsBasePath(), http: srv}, nil
}

// StartEmbeddedSandbox is the embedded default of `make run`: a sandbox in
// this process, with fresh secrets shared with the portal, whose webhooks come
// back to the portal. It points cfg.Upstream at the sandbox.
func StartEmbeddedSandbox(cfg *config.Config, log *slog.Logger) (*RunningSandbox, error) {
	sc := cfg.Sandbox
	token := randomToken()
	sc.Tokens = append(sc.Tokens, token)
	if cfg.Upstream.WebhookToken == "" {
		cfg.Upstream.WebhookToken = randomToken()
	}
	sc.WebhookToken = cfg.Upstream.WebhookToken
	if sc.WebhookURL == "" {
		sc.WebhookURL = cfg.PublicURL.JoinPath("/webhooks/upstream").String()
	}
	if sc.AdminToken == "" {
		sc.AdminToken = randomToken()
		cfg.Sandbox.AdminToken = sc.AdminToken
	}
	// The portal issues the codes of its pricing models to the sandbox as
	// they are saved, and at start (pricing.IssueCurrentCodes), so the
	// sandbox refuses, as a real processor would, a code never issued.
	opts := SandboxOptions(sc, log)
	// The embedded sandbox keeps its uploaded objects encrypted at rest, as the portal
	// keeps its documents.
	ring, err := fieldcrypt.ParseKeyRing(cfg.EncryptionActiveKey, cfg.EncryptionKeys)
	if err != nil {
		return nil, fmt.Errorf("PORTAL_ENCRYPTION_KEYS: %w", err)
	}
	if opts.Accounts.ObjectIdentity, err = sandboxObjectIdentity(sc.DataDir, ring); err != nil {
		return nil, err
	}
	rs, err := StartSandboxServer(sc.ListenAddr, opts)
	if err != nil {
		return nil, err
	}
	cfg.Upstream.BaseURL = rs.BaseURL
	cfg.Upstream.Token = token
	cfg.Upstream.APIKey, cfg.Upstream.APISecret = "", ""
	// Areas B and C and the admin API (credentials at boarding) are the
	// sandbox's too, unless set otherwise.
	if cfg.Processor.PaymentsBaseURL == "" {
		cfg.Processor.PaymentsBaseURL = rs.URL + payments.DefaultBasePath
	}
	if cfg.Processor.TerminalsBaseURL == "" {
		cfg.Processor.TerminalsBaseURL = rs.URL
	}
	cfg.Processor.SandboxAdminURL = rs.URL
	return rs, nil
}

func randomToken() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
