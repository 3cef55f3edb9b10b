package app_test

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/app"
	"github.com/payportal/portal/internal/config"
	upstream "github.com/payportal/portal/internal/upstream/accounts"
	"github.com/payportal/portal/internal/upstream/sandboxadmin"
)

// TestEmbeddedSandbox starts the sandbox of `make run` and talks to it as
// the portal does: the configuration points at its base path (and at its
// areas B and C and admin API), the fresh token works, a pricing code never
// issued is refused as a real processor would, one the portal issues is
// taken, and the admin surface is guarded by the generated token.
func TestEmbeddedSandbox(t *testing.T) {
	vars := map[string]string{
		"PORTAL_DATABASE_URL":        "postgres://unused/db",
		"PORTAL_ENCRYPTION_KEYS":     "k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
		"PORTAL_SANDBOX_LISTEN_ADDR": "127.0.0.1:0",
		"PORTAL_SANDBOX_DATA_DIR":    t.TempDir(),
		"PORTAL_SANDBOX_BASE_PATH":   "/v3",
	}
	cfg, err := config.Load(func(k string) (string, bool) { v, ok := vars[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	rs, err := app.StartEmbeddedSandbox(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rs.Close(context.Background()) })
	if cfg.Upstream.BaseURL != rs.URL+"/v3" || cfg.Upstream.Token == "" || cfg.Sandbox.AdminToken == "" {
		t.Fatalf("upstream config = %+v", cfg.Upstream)
	}
	client, err := app.NewUpstreamClient(cfg.Upstream, slog.New(slog.DiscardHandler), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Processor.PaymentsBaseURL != rs.URL+"/virtualterminal/v1" || cfg.Processor.TerminalsBaseURL != rs.URL ||
		cfg.Processor.SandboxAdminURL != rs.URL || !cfg.SandboxAdmin() {
		t.Fatalf("processor config = %+v", cfg.Processor)
	}
	_, err = client.StartApplication(context.Background(), upstream.StartRequest{ExternalApplicationID: uuid.NewString(), PricingCode: "ANY-CODE"})
	if !upstream.IsPricingCodeRefused(err) {
		t.Fatalf("a code never issued: %v, want the pricing code refused", err)
	}
	admin, err := sandboxadmin.New(sandboxadmin.Config{BaseURL: cfg.Processor.SandboxAdminURL, Token: cfg.Sandbox.AdminToken})
	if err != nil {
		t.Fatal(err)
	}
	if err := admin.IssuePricingCode(context.Background(), "ANY-CODE", "Any model"); err != nil {
		t.Fatalf("issue a code: %v", err)
	}
	id, err := client.StartApplication(context.Background(), upstream.StartRequest{ExternalApplicationID: uuid.NewString(), PricingCode: "ANY-CODE"})
	if err != nil || id == "" {
		t.Fatalf("start through the embedded sandbox: %q %v", id, err)
	}
	req, _ := http.NewRequest(http.MethodGet, rs.URL+"/_sandbox/admin", nil)
	req.SetBasicAuth("admin", cfg.Sandbox.AdminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "frame-ancestors") {
		t.Errorf("admin overview: %d %v", resp.StatusCode, resp.Header)
	}
	if codes := rs.Server.PricingCodes(); len(codes) != 1 || codes[0].Code != "ANY-CODE" {
		t.Errorf("codes recorded = %+v", codes)
	}
}
