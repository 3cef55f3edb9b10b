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
	"time"

	"github.com/payportal/portal/internal/config"
	sandbox "github.com/payportal/portal/internal/sandbox/accounts"
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

// SandboxOptions maps the sandbox settings to the sandbox's own options.
func SandboxOptions(cfg config.SandboxConfig, log *slog.Logger) sandbox.Options {
	opts := sandbox.Options{
		PublicBaseURL: cfg.PublicURL,
		Tokens:        cfg.Tokens,
		APIKeys:       cfg.APIKeys,
		PricingCodes:  cfg.PricingCodes,
		WebhookURL:    cfg.WebhookURL,
		WebhookToken:  cfg.WebhookToken,
		AdminToken:    cfg.AdminToken,
		Faults: sandbox.Faults{
			Latency: cfg.Latency, LatencyJitter: cfg.LatencyJitter,
			ErrorRate: cfg.ErrorRate, DropRate: cfg.DropRate, URLLifetime: cfg.URLLifetime,
		},
		Compat: sandbox.Compat{OmitPresignedURL: cfg.OmitURL, ExpAtSeconds: cfg.ExpAtSeconds},
		Logger: log.With("component", "sandbox"),
	}
	if cfg.DataDir != "" {
		opts.ObjectDir = filepath.Join(cfg.DataDir, "objects")
		opts.StateFile = filepath.Join(cfg.DataDir, "state.json")
	}
	return opts
}

// RunningSandbox is a sandbox served on its own listener.
type RunningSandbox struct {
	Server *sandbox.Server
	URL    string // scheme://host:port
	http   *http.Server
}

// Close stops serving and stops the sandbox's webhook deliveries.
func (r *RunningSandbox) Close(ctx context.Context) error {
	return errors.Join(r.http.Shutdown(ctx), r.Server.Close())
}

// StartSandbox serves a sandbox on opts' listen address. The sandbox gets its
// own port, so links, uploads and webhooks cross a real socket as they would
// with the real upstream.
func StartSandbox(listenAddr string, opts sandbox.Options) (*RunningSandbox, error) {
	ln, err := net.Listen("tcp", listenAddr)
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
		base = opts.PublicBaseURL
	} else if err := sb.SetPublicBaseURL(base); err != nil {
		_ = ln.Close()
		return nil, err
	}
	srv := &http.Server{Handler: sb.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return &RunningSandbox{Server: sb, URL: base, http: srv}, nil
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
	rs, err := StartSandbox(sc.ListenAddr, SandboxOptions(sc, log))
	if err != nil {
		return nil, err
	}
	cfg.Upstream.BaseURL = rs.URL + "/v2"
	cfg.Upstream.Token = token
	cfg.Upstream.APIKey, cfg.Upstream.APISecret = "", ""
	return rs, nil
}

func randomToken() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
