package submission_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/payportal/portal/internal/testutil"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/app"
	"github.com/payportal/portal/internal/auth"
	"github.com/payportal/portal/internal/config"
	"github.com/payportal/portal/internal/models"
	sandbox "github.com/payportal/portal/internal/sandbox/accounts"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// TestPushSurvivesAKilledWorkerProcess runs `portal serve` as a separate
// process against a test database and a sandbox whose every answer takes
// 150 ms, kills it with SIGKILL in the middle of a push (after the upstream
// application exists, before the link), and starts it again. The push must
// complete with one upstream application and every document byte for byte.
//
// The second process has to wait for the killed one's River leadership to
// expire (about 15 s) before the rescuer gives the orphaned job back, so the
// test is skipped with -short.
func TestPushSurvivesAKilledWorkerProcess(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the portal and waits for a leadership to expire")
	}
	bin := filepath.Join(t.TempDir(), "portal")
	build := exec.Command("go", "build", "-o", bin, "github.com/payportal/portal/cmd/portal")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the portal: %v\n%s", err, out)
	}

	db, dbURL := testdb.NewWithURL(t)
	token := uuid.NewString()
	rs, err := app.StartSandbox("127.0.0.1:0", sandbox.Options{
		Tokens: []string{token}, Faults: sandbox.Faults{Latency: 150 * time.Millisecond},
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rs.Close(context.Background()) })
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	vars := map[string]string{
		"PORTAL_DATABASE_URL":      dbURL,
		"PORTAL_ENCRYPTION_KEYS":   "crash:" + base64.StdEncoding.EncodeToString(key),
		"PORTAL_STORAGE_DIR":       t.TempDir(),
		"PORTAL_LISTEN_ADDR":       "127.0.0.1:0",
		"PORTAL_RESELLER_NAME":     "Test Payments",
		"PORTAL_UPSTREAM_MODE":     "remote",
		"PORTAL_UPSTREAM_BASE_URL": rs.URL + "/v2",
		"PORTAL_UPSTREAM_TOKEN":    token,
		"PORTAL_JOB_TIMEOUT":       "5s",
		"PORTAL_JOB_RESCUE_AFTER":  "6s",
		"PORTAL_LOG_LEVEL":         "debug",
	}

	// The test's own portal (no workers) makes and submits the application.
	cfg, err := config.Load(func(k string) (string, bool) { v, ok := vars[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	portal, err := app.Build(context.Background(), cfg, db, slog.New(slog.DiscardHandler), app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, _, err := portal.Auth.CreateUser(context.Background(), auth.NewUser{
		Email: "rep@example.com", Name: "Rita Rep", Role: models.RoleSalesRep, Password: "correct-horse-battery-staple",
	})
	if err != nil {
		t.Fatal(err)
	}
	a := storeApplication(t, portal, createPricingModel(t, db.Gorm), rep, readyDraft("Crash Test Cafe"), 3)
	if err := portal.Submissions.Submit(context.Background(), rep, a.ID); err != nil {
		t.Fatal(err)
	}

	load := func() *models.Application {
		var got models.Application
		if err := db.Gorm.Where("id = ?", a.ID).Take(&got).Error; err != nil {
			t.Fatal(err)
		}
		return &got
	}
	first := startPortal(t, bin, vars)
	// Kill it while its documents are on their way: the upstream application
	// exists and has the data, uploads are in flight, the link is not made.
	testutil.Eventually(t, 20*time.Second, "the documents' uploads to start", func() (bool, string) {
		var uploading int64
		db.Gorm.Model(&models.Document{}).Where("application_id = ? AND upstream_status = 'uploading'", a.ID).Count(&uploading)
		return uploading > 0, fmt.Sprintf("%d uploading", uploading)
	})
	first.kill(t)
	if got := load(); got.Status != models.StatusSubmitting || got.UpstreamApplicationID == nil || got.DataSentAt == nil || got.LinkedAt != nil {
		t.Fatalf("killed at the wrong moment: %+v", got)
	}

	second := startPortal(t, bin, vars)
	defer second.kill(t)
	testutil.Eventually(t, 60*time.Second, "the application to be linked", func() (bool, string) {
		st := load().Status
		return st == models.StatusLinked, "it is " + string(st)
	})
	if n := rs.Server.StartedCount(); n != 1 {
		t.Errorf("the sandbox started %d applications, want 1", n)
	}
	got := load()
	var docs []models.Document
	db.Gorm.Where("application_id = ? AND deleted_at IS NULL", a.ID).Find(&docs)
	if len(docs) != 3 {
		t.Fatalf("%d documents", len(docs))
	}
	for _, d := range docs {
		sum, ok := rs.Server.FileSHA256(deref(got.UpstreamApplicationID), deref(d.UpstreamFileID))
		if !ok || sum != d.SHA256 {
			t.Errorf("document %s: sandbox %q (%v), ours %q", d.DisplayName, sum, ok, d.SHA256)
		}
	}
	if t.Failed() {
		t.Logf("first process:\n%s\nsecond process:\n%s", first.output(), second.output())
	}
}

// process is a running `portal serve`.
type process struct {
	cmd *exec.Cmd
	mu  sync.Mutex
	out bytes.Buffer
}

func (p *process) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Write(b)
}

func (p *process) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

func startPortal(t *testing.T, bin string, vars map[string]string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(bin, "serve")}
	p.cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for k, v := range vars {
		p.cmd.Env = append(p.cmd.Env, k+"="+v)
	}
	p.cmd.Stdout, p.cmd.Stderr = p, p
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.kill(t) })
	return p
}

// kill ends the process with SIGKILL: no shutdown, no cleanup, as a crash.
func (p *process) kill(t *testing.T) {
	t.Helper()
	if p.cmd.ProcessState != nil {
		return
	}
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
}
