package app_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/app"
	"github.com/payportal/portal/internal/config"
	"github.com/payportal/portal/internal/testutil"
	upstream "github.com/payportal/portal/internal/upstream/accounts"
)

// The sandbox of `make run` keeps the documents pushed to it encrypted in its data folder,
// under a key sealed with the portal's key ring, which survives a restart.
func TestEmbeddedSandboxEncryptsObjects(t *testing.T) {
	dataDir := t.TempDir()
	start := func() (*app.RunningSandbox, *upstream.Client) {
		vars := map[string]string{
			"PORTAL_DATABASE_URL":          "postgres://unused/db",
			"PORTAL_ENCRYPTION_KEYS":       "k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
			"PORTAL_SANDBOX_LISTEN_ADDR":   "127.0.0.1:0",
			"PORTAL_SANDBOX_DATA_DIR":      dataDir,
			"PORTAL_SANDBOX_PRICING_CODES": "FLAT-295",
		}
		cfg, err := config.Load(func(k string) (string, bool) { v, ok := vars[k]; return v, ok })
		if err != nil {
			t.Fatal(err)
		}
		rs, err := app.StartEmbeddedSandbox(cfg, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		client, err := app.NewUpstreamClient(cfg.Upstream, slog.New(slog.DiscardHandler), time.Now)
		if err != nil {
			t.Fatal(err)
		}
		return rs, client
	}
	ctx := context.Background()
	rs, client := start()
	appID, err := client.StartApplication(ctx, upstream.StartRequest{ExternalApplicationID: uuid.NewString(), PricingCode: "FLAT-295"})
	if err != nil {
		t.Fatal(err)
	}
	content := "%PDF-1.7\nMARKER-embedded-sandbox\n" + strings.Repeat("x", 100000)
	up, err := client.CreateFile(ctx, appID, upstream.FileMetadata{FileType: "bankStatement", Name: "s.pdf", ContentLength: int64(len(content)), ContentType: "application/pdf"})
	if err != nil {
		t.Fatal(err)
	}
	if err := client.UploadToPresignedURL(ctx, up.PresignedURL, strings.NewReader(content), int64(len(content)), "application/pdf"); err != nil {
		t.Fatal(err)
	}
	_ = rs.Close(ctx)
	if hits := testutil.FilesContaining(t, dataDir, []byte("MARKER-embedded-sandbox")); len(hits) > 0 {
		t.Fatalf("plaintext in the sandbox's data folder: %v", hits)
	}
	if hits := testutil.FilesContaining(t, dataDir, []byte("AGE-SECRET-KEY")); len(hits) > 0 {
		t.Fatalf("the object key lies readable in %v", hits)
	}
	if _, err := os.Stat(filepath.Join(dataDir, "objects.key")); err != nil {
		t.Fatal(err)
	}
	rs, _ = start()
	defer rs.Close(ctx)
	rc, err := rs.Server.ReadObject(appID, up.FileID)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if got, _ := io.ReadAll(rc); string(got) != content {
		t.Fatalf("after a restart the object reads back %d bytes, want %d", len(got), len(content))
	}
}
