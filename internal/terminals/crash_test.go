package terminals_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/app"
	"github.com/payportal/portal/internal/auth"
	"github.com/payportal/portal/internal/config"
	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/merchants"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/payments"
	"github.com/payportal/portal/internal/sandbox"
	"github.com/payportal/portal/internal/sandbox/accounts"
	"github.com/payportal/portal/internal/sandbox/kit"
	"github.com/payportal/portal/internal/terminals"
	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/testutil/portalproc"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// TestFollowingSurvivesAKilledPortalProcess runs `portal serve` as a child
// process, lets it take a launched sale over and poll it while the
// cardholder (on the sandbox's manual clock) is still at the terminal, kills
// it with SIGKILL mid-poll, and starts another: the new process takes the
// sale over once the dead one's lease has run out, with its original
// budget, and records the result. The terminal received one transaction.
func TestFollowingSurvivesAKilledPortalProcess(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the portal and runs it twice")
	}
	bin := portalproc.Build(t)
	db, dbURL := testdb.NewWithURL(t)
	clock := kit.NewManualClock(time.Now().UTC().Truncate(time.Second))
	token, adminToken, webhookToken := uuid.NewString(), uuid.NewString(), uuid.NewString()
	rs, err := app.StartSandboxServer("127.0.0.1:0", sandbox.Options{Clock: clock, AdminToken: adminToken,
		Logger: slog.New(slog.DiscardHandler), Accounts: accounts.Options{Tokens: []string{token}, AnyPricingCode: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rs.Close(context.Background()) })
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	vars := map[string]string{
		"PORTAL_DATABASE_URL":           dbURL,
		"PORTAL_ENCRYPTION_KEYS":        "crash:" + base64.StdEncoding.EncodeToString(key),
		"PORTAL_STORAGE_DIR":            t.TempDir(),
		"PORTAL_LISTEN_ADDR":            "127.0.0.1:0",
		"PORTAL_UPSTREAM_MODE":          "remote",
		"PORTAL_UPSTREAM_BASE_URL":      rs.BaseURL,
		"PORTAL_UPSTREAM_TOKEN":         token,
		"PORTAL_UPSTREAM_WEBHOOK_TOKEN": webhookToken,
		"PORTAL_TERMINALS_BASE_URL":     rs.URL,
		"PORTAL_TERMINALS_LEASE":        "3s",
		"PORTAL_LOG_LEVEL":              "debug",
	}

	// The test's own portal, which follows nothing (its follower is not
	// started), sets the merchant up and launches the sale: a web-only
	// process leaves the following to a serving one at once.
	cfg, err := config.Load(func(k string) (string, bool) { v, ok := vars[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	portal, err := app.Build(context.Background(), cfg, db, slog.New(slog.DiscardHandler), app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	web := httptest.NewServer(portal.Handler)
	t.Cleanup(web.Close)
	ctx := context.Background()
	admin, _, err := portal.Auth.CreateUser(ctx, auth.NewUser{Email: "admin@example.com", Name: "Ada Admin", Role: models.RoleAdmin, Password: "correct-horse-battery-staple"})
	if err != nil {
		t.Fatal(err)
	}
	merchantID := boardForCrash(t, portal, web.URL, admin, webhookToken)
	var loc struct {
		LocationID string `json:"locationId"`
		APIKey     string `json:"apiKey"`
	}
	sandboxJSON(t, rs.URL, adminToken, http.MethodPost, "/locations", `{"name": "Till"}`, &loc)
	sandboxJSON(t, rs.URL, adminToken, http.MethodGet, "/locations/"+loc.LocationID, "", &loc)
	if err := portal.Merchants.SetTerminalKey(ctx, admin, merchantID, merchants.TerminalKeyInput{APIKey: loc.APIKey}); err != nil {
		t.Fatal(err)
	}
	if err := portal.Merchants.AddLocation(ctx, admin, merchantID, merchants.LocationInput{LocationID: loc.LocationID, Name: "Till", TestMode: true}); err != nil {
		t.Fatal(err)
	}
	if err := portal.Terminals.Refresh(ctx, admin, merchantID, loc.LocationID); err != nil {
		t.Fatal(err)
	}
	// The installer's test sale, on the emulator.
	l, err := portal.Terminals.Launch(ctx, admin, merchantID, terminals.LaunchRequest{FormToken: uuid.NewString(), Kind: "sale",
		Amount: "0.50", LocationID: loc.LocationID, Device: "EMULATOR"})
	if err != nil || l.State != terminals.StateWaiting {
		t.Fatalf("launch: %v %+v", err, l)
	}
	reads := func() int { return rs.Root.Faults().Requests("terminals") }
	launched := reads()

	first := startChild(t, bin, vars)
	testutil.Eventually(t, 30*time.Second, "the first process to poll the sale", func() (bool, string) {
		return reads() >= launched+2, fmt.Sprintf("%d reads", reads()-launched)
	})
	first.kill()
	if got := loadLaunch(t, portal, l.ID); got.State != terminals.StateWaiting || got.Follower == nil {
		t.Fatalf("killed at the wrong moment: %s, follower %v", got.State, got.Follower)
	}
	held := *loadLaunch(t, portal, l.ID).Follower

	// The cardholder finishes while no portal is running.
	clock.Advance(10 * time.Second)
	second := startChild(t, bin, vars)
	defer second.kill()
	testutil.Eventually(t, 60*time.Second, "the second process to record the result", func() (bool, string) {
		got := loadLaunch(t, portal, l.ID)
		return got.State == terminals.StateApproved, string(got.State)
	})
	got := loadLaunch(t, portal, l.ID)
	if deref(got.LaunchedAt) != deref(l.LaunchedAt) {
		t.Errorf("the budget restarted: launched at %v, now %v", l.LaunchedAt, got.LaunchedAt)
	}
	line, err := payments.NewLedger(db.Pool, nil, time.Now).Get(ctx, nil, merchantID, l.ID)
	if err != nil {
		t.Fatal(err)
	}
	if line.Status != payments.StatusApproved || line.ApprovedCents != 50 {
		t.Errorf("ledger: %s %d", line.Status, line.ApprovedCents)
	}
	var txs []sandboxTx
	sandboxJSON(t, rs.URL, adminToken, http.MethodGet, "/transactions", "", &txs)
	if len(txs) != 1 {
		t.Errorf("the terminal received %d transactions", len(txs))
	}
	if t.Failed() {
		t.Logf("the first process held it as %s\nfirst process:\n%s\nsecond process:\n%s", held, first.output(), second.output())
	}
}

// boardForCrash stores a linked application and boards it by webhook.
func boardForCrash(t *testing.T, a *app.App, webURL string, owner *models.User, webhookToken string) uuid.UUID {
	t.Helper()
	now, upID := time.Now(), uuid.NewString()
	appl := &models.Application{ID: uuid.New(), OwnerID: owner.ID, Status: models.StatusLinked, Version: 1,
		LegalName: "Till Shop LLC", DBA: "Till Shop", ContactName: "Jo", ContactEmail: "jo@till.example",
		UpstreamApplicationID: &upID, HandoffLink: new("https://upstream.example/app/" + upID), LinkedAt: &now,
		CreatedAt: now, UpdatedAt: now, SubmissionCount: 1}
	var err error
	if appl.Draft, err = a.Sealer.SealJSON(appl.ID, drafts.Draft{Business: drafts.Business{LegalName: appl.LegalName, DBA: appl.DBA}}); err != nil {
		t.Fatal(err)
	}
	if err := a.DB.Gorm.Create(appl).Error; err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"id": upID, "status": "boarded", "created": now.UnixMilli(), "token": webhookToken})
	res, err := http.Post(webURL+"/webhooks/upstream", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	id, ok, err := a.Merchants.Store().IDOfApplication(context.Background(), appl.ID)
	if err != nil || !ok {
		t.Fatalf("no merchant (%d, %v)", res.StatusCode, err)
	}
	return id
}

func loadLaunch(t *testing.T, a *app.App, id uuid.UUID) *terminals.Launch {
	t.Helper()
	l, err := a.Terminals.Store().Launch(context.Background(), nil, id)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// sandboxJSON calls the sandbox's terminals admin JSON at base.
func sandboxJSON(t *testing.T, base, token, method, path, body string, out any) {
	t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), method, base+"/_sandbox/admin/api/terminals"+path, strings.NewReader(body))
	req.SetBasicAuth("admin", token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		t.Fatalf("sandbox %s %s: %d %s", method, path, res.StatusCode, b)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
}

// child is a running `portal serve`.
type child struct {
	cmd *exec.Cmd
	mu  sync.Mutex
	out bytes.Buffer
}

func (c *child) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.Write(b)
}

func (c *child) output() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.String()
}

func startChild(t *testing.T, bin string, vars map[string]string) *child {
	t.Helper()
	c := &child{cmd: exec.Command(bin, "serve")}
	c.cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for k, v := range vars {
		c.cmd.Env = append(c.cmd.Env, k+"="+v)
	}
	c.cmd.Stdout, c.cmd.Stderr = c, c
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.kill)
	return c
}

// kill ends the process with SIGKILL: no shutdown, no lease released.
func (c *child) kill() {
	if c.cmd.ProcessState != nil {
		return
	}
	_ = c.cmd.Process.Kill()
	_ = c.cmd.Wait()
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
