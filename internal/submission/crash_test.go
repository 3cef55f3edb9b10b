package submission_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/testutil/portalproc"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/app"
	"github.com/payportal/portal/internal/auth"
	"github.com/payportal/portal/internal/config"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/models"
	sandbox "github.com/payportal/portal/internal/sandbox/accounts"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// crashApplications and crashDocuments are the pushes in flight when the
// crash tests kill the portal.
const (
	crashApplications = 6
	crashDocuments    = 2
)

// TestPushSurvivesAKilledWorkerProcess runs `portal serve` as a separate
// process against a test database and a sandbox whose every answer takes
// 150 ms, kills it with SIGKILL while its pushes are on their way (upstream
// applications started, documents uploading, no link yet), and starts it
// again with a short job lease (3 s). The new process's sweep finds the dead
// runs' leases expired and hands their jobs back; every push must complete,
// with one upstream application each and every document byte for byte. Runs
// of one application never overlap: each holds the application's lease
// (internal/jobs, tested there).
func TestPushSurvivesAKilledWorkerProcess(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the portal and kills it")
	}
	c := newCrashEnv(t, map[string]string{"PORTAL_JOB_LEASE": "3s", "PORTAL_LOG_LEVEL": "debug"})
	ids := c.submitAll(t, crashApplications, crashDocuments)

	first := portalproc.Start(t, c.bin, c.vars)
	c.waitUntilMidPush(t, ids)
	first.Kill(t)
	inFlight := c.unlinked(t, ids)
	if inFlight == 0 {
		t.Fatal("every push had finished before the kill")
	}

	second := portalproc.Start(t, c.bin, c.vars)
	defer second.Kill(t)
	c.waitAllLinked(t, ids, 60*time.Second)
	c.assertPushedOnce(t, ids)
	if got := strings.Count(second.Output(), "job handed back to the queue"); got < inFlight {
		t.Errorf("the new process handed back %d jobs, want one per push in flight (%d)", got, inFlight)
	}
	if t.Failed() {
		t.Logf("first process:\n%s\nsecond process:\n%s", first.Output(), second.Output())
	}
}

// crashEnv is a test database with a signed-up rep and pricing model, a
// sandbox with 150 ms of latency, a portal binary and the settings to run it.
type crashEnv struct {
	db   *database.DB
	bin  string
	vars map[string]string
	rs   *app.RunningSandbox
	// portal is an in-process portal without workers that submits.
	portal *app.App
	rep    *models.User
}

func newCrashEnv(t testing.TB, extra map[string]string) *crashEnv {
	t.Helper()
	c := &crashEnv{bin: portalproc.Build(t)}
	var dbURL string
	c.db, dbURL = testdb.NewWithURL(t)
	token := uuid.NewString()
	rs, err := app.StartSandbox("127.0.0.1:0", sandbox.Options{
		Tokens: []string{token}, Faults: sandbox.Faults{Latency: 150 * time.Millisecond},
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	c.rs = rs
	t.Cleanup(func() { _ = rs.Close(context.Background()) })
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	c.vars = map[string]string{
		"PORTAL_DATABASE_URL":      dbURL,
		"PORTAL_ENCRYPTION_KEYS":   "crash:" + base64.StdEncoding.EncodeToString(key),
		"PORTAL_STORAGE_DIR":       t.TempDir(),
		"PORTAL_LISTEN_ADDR":       "127.0.0.1:0",
		"PORTAL_RESELLER_NAME":     "Test Payments",
		"PORTAL_UPSTREAM_MODE":     "remote",
		"PORTAL_UPSTREAM_BASE_URL": rs.URL + "/v2",
		"PORTAL_UPSTREAM_TOKEN":    token,
	}
	maps.Copy(c.vars, extra)
	// The test's own portal (no workers) makes and submits the applications.
	cfg, err := config.Load(func(k string) (string, bool) { v, ok := c.vars[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	if c.portal, err = app.Build(context.Background(), cfg, c.db, slog.New(slog.DiscardHandler), app.Options{}); err != nil {
		t.Fatal(err)
	}
	c.rep, _, err = c.portal.Auth.CreateUser(context.Background(), auth.NewUser{
		Email: "rep@example.com", Name: "Rita Rep", Role: models.RoleSalesRep, Password: "correct-horse-battery-staple",
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// submitAll stores and submits n applications with docs documents each.
func (c *crashEnv) submitAll(t testing.TB, n, docs int) []uuid.UUID {
	t.Helper()
	pricingModel := createPricingModel(t, c.db.Gorm)
	ids := make([]uuid.UUID, n)
	for i := range ids {
		a := storeApplication(t, c.portal, pricingModel, c.rep, readyDraft(fmt.Sprintf("Crash Test Cafe %d", i)), docs)
		if err := c.portal.Submissions.Submit(context.Background(), c.rep, a.ID); err != nil {
			t.Fatal(err)
		}
		ids[i] = a.ID
	}
	return ids
}

// waitUntilMidPush waits until documents are on their way: the upstream
// applications exist, uploads are in flight, the links are not made.
func (c *crashEnv) waitUntilMidPush(t testing.TB, ids []uuid.UUID) {
	t.Helper()
	testutil.Eventually(t, 30*time.Second, "the documents' uploads to start", func() (bool, string) {
		var uploading int64
		c.db.Gorm.Model(&models.Document{}).Where("application_id IN ? AND upstream_status = 'uploading'", ids).Count(&uploading)
		return uploading > 0, fmt.Sprintf("%d uploading", uploading)
	})
}

// unlinked counts the applications still being pushed, checking that each
// is in the middle of its push or not yet started.
func (c *crashEnv) unlinked(t testing.TB, ids []uuid.UUID) int {
	t.Helper()
	n := 0
	for _, id := range ids {
		a := c.load(t, id)
		switch {
		case a.Status == models.StatusLinked:
		case a.Status != models.StatusSubmitting:
			t.Fatalf("application %s is %s after the kill", id, a.Status)
		default:
			n++
		}
	}
	return n
}

// waitAllLinked waits until every application is linked.
func (c *crashEnv) waitAllLinked(t testing.TB, ids []uuid.UUID, timeout time.Duration) {
	t.Helper()
	testutil.Eventually(t, timeout, "every application to be linked", func() (bool, string) {
		var linked int64
		c.db.Gorm.Model(&models.Application{}).Where("id IN ? AND status = 'linked'", ids).Count(&linked)
		return int(linked) == len(ids), fmt.Sprintf("%d of %d linked", linked, len(ids))
	})
}

// assertPushedOnce checks that the sandbox started one application for each
// of ours and holds every document byte for byte.
func (c *crashEnv) assertPushedOnce(t testing.TB, ids []uuid.UUID) {
	t.Helper()
	if n := c.rs.Server.StartedCount(); n != len(ids) {
		t.Errorf("the sandbox started %d applications, want %d", n, len(ids))
	}
	for _, id := range ids {
		a := c.load(t, id)
		var docs []models.Document
		c.db.Gorm.Where("application_id = ? AND deleted_at IS NULL", id).Find(&docs)
		for _, d := range docs {
			sum, ok := c.rs.Server.FileSHA256(deref(a.UpstreamApplicationID), deref(d.UpstreamFileID))
			if !ok || sum != d.SHA256 {
				t.Errorf("application %s, document %s: sandbox %q (%v), ours %q", id, d.DisplayName, sum, ok, d.SHA256)
			}
		}
	}
}

func (c *crashEnv) load(t testing.TB, id uuid.UUID) *models.Application {
	t.Helper()
	var a models.Application
	if err := c.db.Gorm.Where("id = ?", id).Take(&a).Error; err != nil {
		t.Fatal(err)
	}
	return &a
}
