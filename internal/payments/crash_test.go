package payments_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/app"
	"github.com/payportal/portal/internal/auth"
	"github.com/payportal/portal/internal/config"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/merchants"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/payments"
	"github.com/payportal/portal/internal/sandbox"
	"github.com/payportal/portal/internal/sandbox/accounts"
	sbpayments "github.com/payportal/portal/internal/sandbox/payments"
	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/testutil/portalproc"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// TestSaleSurvivesAKilledPortal runs `portal serve` as a child process and
// kills it with SIGKILL in the middle of a card sale: after the processor
// charged the card, before the portal learnt it (the answer is dropped and
// the read-backs fail for a while). A second process finds the sale's intent,
// reads it back in the background and records the approval: one upstream
// transaction, one approved row in the ledger.
//
// The second process must wait for the killed one's River leadership to
// expire before the scheduled check runs, so the test is skipped with -short.
func TestSaleSurvivesAKilledPortal(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the portal and waits for a leadership to expire")
	}
	bin := portalproc.Build(t)
	db, dbURL := testdb.NewWithURL(t)
	const adminToken = "crash-admin"
	rs, err := app.StartSandboxServer("127.0.0.1:0", sandbox.Options{AdminToken: adminToken,
		Accounts: accounts.Options{Tokens: []string{"area-a-token"}}, PaymentsOptions: sbpayments.Options{RateLimit: -1},
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rs.Close(context.Background()) })
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	vars := map[string]string{
		"PORTAL_DATABASE_URL": dbURL, "PORTAL_ENCRYPTION_KEYS": "crash:" + base64.StdEncoding.EncodeToString(key),
		"PORTAL_STORAGE_DIR": t.TempDir(), "PORTAL_RESELLER_NAME": "Test Payments",
		"PORTAL_UPSTREAM_MODE": "remote", "PORTAL_UPSTREAM_BASE_URL": rs.URL + "/v2", "PORTAL_UPSTREAM_TOKEN": "area-a-token",
		"PORTAL_PAYMENTS_BASE_URL":    rs.URL + sbpayments.DefaultBasePath,
		"PORTAL_PAYMENTS_CHECK_EVERY": "5s", "PORTAL_JOB_TIMEOUT": "5s", "PORTAL_JOB_RESCUE_AFTER": "6s",
	}
	merchantID, email, password, secret := crashSetup(t, db, vars, rs.URL, adminToken)

	first := startPortal(t, bin, vars)
	c := newChildClient(t, "http://"+vars["PORTAL_LISTEN_ADDR"])
	c.signIn(email, password, secret)
	page := c.get("/merchants/" + merchantID.String() + "/payments/new")
	token := tokenPattern.FindStringSubmatch(page)
	if token == nil {
		t.Fatalf("no payment form:\n%s", page)
	}
	// The processor acts, the answer is lost, and every read-back fails for
	// a few seconds: the sale is charged while the portal does not know it.
	rs.Root.Faults().FailNext("payments", -1, 503, 503, 503, 503)
	go c.post("/merchants/"+merchantID.String()+"/payments/card", url.Values{"form_token": {strings.ReplaceAll(token[1], "&#43;", "+")},
		"action": {"sale"}, "amount": {"77.00"}, "card_number": {"4111111111111111"}, "expiry": {expiry()}})
	var oid string
	testutil.Eventually(t, 20*time.Second, "the processor to charge the card", func() (bool, string) {
		oid = accountOID(t, rs.URL, adminToken)
		return len(sandboxTransactions(t, rs.URL, adminToken, oid)) == 1, "not yet"
	})
	first.Kill(t)
	ledger := func() []*payments.Transaction {
		list, err := payments.NewLedger(db.Pool, nil, time.Now).List(context.Background(), nil, payments.Filter{MerchantID: merchantID})
		if err != nil {
			t.Fatal(err)
		}
		return list.Transactions
	}
	if rows := ledger(); len(rows) != 1 || !rows[0].Status.Open() {
		t.Fatalf("killed at the wrong moment: %d rows %+v", len(rows), rows)
	}

	second := startPortal(t, bin, vars)
	defer second.Kill(t)
	testutil.Eventually(t, 90*time.Second, "the sale to be read back", func() (bool, string) {
		rows := ledger()
		return len(rows) == 1 && rows[0].Status == payments.StatusApproved, "not yet"
	})
	if n := len(sandboxTransactions(t, rs.URL, adminToken, oid)); n != 1 {
		t.Errorf("%d upstream transactions, want 1", n)
	}
	if t.Failed() {
		t.Logf("first process:\n%s\nsecond process:\n%s", first.Output(), second.Output())
	}
}

// crashSetup makes, in the database the child portals will use, a boarded
// merchant with a sandbox payment account and a merchant user allowed to take
// payments, with two-step sign-in; it returns them and the user's TOTP secret.
func crashSetup(t *testing.T, db *database.DB, vars map[string]string, sandboxURL, adminToken string) (uuid.UUID, string, string, string) {
	t.Helper()
	ctx := context.Background()
	cfg, err := config.Load(func(k string) (string, bool) { v, ok := vars[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.Build(ctx, cfg, db, slog.New(slog.DiscardHandler), app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	admin, _, err := a.Auth.CreateUser(ctx, auth.NewUser{Email: "admin@example.com", Name: "Ada Admin", Role: models.RoleAdmin, Password: "correct-horse-battery-staple"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	upID := uuid.NewString()
	appl := &models.Application{ID: uuid.New(), OwnerID: admin.ID, Status: models.StatusLinked, Version: 1, LegalName: "Crash Cafe LLC",
		DBA: "Crash Cafe", ContactName: "Jane Doe", ContactEmail: "jane@cafe.example", UpstreamApplicationID: &upID,
		HandoffLink: new("https://upstream.example/app/" + upID), LinkedAt: &now, CreatedAt: now, UpdatedAt: now, SubmissionCount: 1}
	if appl.Draft, err = a.Sealer.SealJSON(appl.ID, drafts.Draft{Business: drafts.Business{LegalName: appl.LegalName}}); err != nil {
		t.Fatal(err)
	}
	if err := db.Gorm.Create(appl).Error; err != nil {
		t.Fatal(err)
	}
	if err := a.Merchants.Store().InTx(ctx, func(tx pgx.Tx) error {
		return a.Merchants.FollowStatus(ctx, tx, appl.ID, "boarded", now.Add(-time.Hour))
	}); err != nil {
		t.Fatal(err)
	}
	id, _, err := a.Merchants.Store().IDOfApplication(ctx, appl.ID)
	if err != nil {
		t.Fatal(err)
	}
	var acct struct{ OID, Token string }
	adminCall(t, sandboxURL, http.MethodPost, "/_sandbox/admin/api/payments/accounts", map[string]string{"name": "Crash Cafe"}, &acct, adminToken)
	if err := a.Merchants.SetPaymentAccount(ctx, admin, id, merchants.PaymentInput{OID: acct.OID, Token: acct.Token}); err != nil {
		t.Fatal(err)
	}
	email, password := "cashier@cafe.example", "violet-tractor-mango-1984"
	if _, err := a.Merchants.Invite(ctx, admin, id, merchants.MemberInput{Email: email, Name: "Casey",
		Permissions: merchants.Permissions{merchants.PermTakePayments}}); err != nil {
		t.Fatal(err)
	}
	// The e-mailed link is sealed in the outbox (and no worker runs here): a fresh one
	// is issued, as an admin's "resend" does.
	invited, err := a.Auth.Users().ByEmail(ctx, email)
	if err != nil {
		t.Fatal(err)
	}
	token, _, err := a.Auth.ReInvite(ctx, admin, invited, nil)
	if err != nil {
		t.Fatal(err)
	}
	u, err := a.Auth.AcceptInvitation(ctx, token, password, password)
	if err != nil {
		t.Fatalf("accept the invitation: %v", err)
	}
	enr, err := a.Auth.BeginEnrolment(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	secret := strings.ReplaceAll(enr.Secret, " ", "")
	if _, err := a.Auth.ConfirmEnrolment(ctx, u, auth.TOTPCode(secret, time.Now()), "127.0.0.1"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, "UPDATE users SET mfa_last_step = 0 WHERE id = $1", u.ID); err != nil {
		t.Fatal(err)
	}
	return id, email, password, secret
}

// freeAddr is a local address nobody listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	var lc net.ListenConfig
	ln, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// accountOID is the sandbox's only payment account.
func accountOID(t *testing.T, base, token string) string {
	var list []struct{ OID string }
	adminCall(t, base, http.MethodGet, "/_sandbox/admin/api/payments/accounts", nil, &list, token)
	if len(list) == 0 {
		return ""
	}
	return list[0].OID
}

func sandboxTransactions(t *testing.T, base, token, oid string) []upstreamTransaction {
	var list []upstreamTransaction
	adminCall(t, base, http.MethodGet, "/_sandbox/admin/api/payments/transactions?oid="+oid, nil, &list, token)
	return list
}

// startPortal starts a child portal on a free address (written into vars) and
// waits until it serves. An address can be taken by another test between the
// moment it was found free and the child's bind: the child then ends, and the
// next attempt takes another address, so the test never talks to a server
// that is not its child.
func startPortal(t *testing.T, bin string, vars map[string]string) *portalproc.Process {
	t.Helper()
	for attempt := 1; ; attempt++ {
		vars["PORTAL_LISTEN_ADDR"] = freeAddr(t)
		p := portalproc.Start(t, bin, vars)
		if p.WaitStarted(t, 60*time.Second) {
			return p
		}
		if attempt == 3 {
			t.Fatalf("the portal did not start:\n%s", p.Output())
		}
	}
}

// childClient is a browser-like client of a child portal.
type childClient struct {
	t    *testing.T
	base string
	http *http.Client
	mu   sync.Mutex
	csrf string
}

var childCSRF = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

func newChildClient(t *testing.T, base string) *childClient {
	jar, _ := cookiejar.New(nil)
	return &childClient{t: t, base: base, http: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (c *childClient) do(req *http.Request) (int, string) {
	res, err := c.http.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if m := childCSRF.FindSubmatch(b); m != nil {
		c.mu.Lock()
		c.csrf = string(m[1])
		c.mu.Unlock()
	}
	return res.StatusCode, string(b)
}

func (c *childClient) get(path string) string {
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, c.base+path, nil)
	_, body := c.do(req)
	return body
}

func (c *childClient) post(path string, form url.Values) int {
	c.mu.Lock()
	form.Set("csrf_token", c.csrf)
	c.mu.Unlock()
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, c.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	status, _ := c.do(req)
	return status
}

func (c *childClient) signIn(email, password, secret string) {
	c.t.Helper()
	c.get("/login")
	if s := c.post("/login", url.Values{"email": {email}, "password": {password}}); s != http.StatusSeeOther {
		c.t.Fatalf("sign in: %d", s)
	}
	c.get("/login/mfa")
	if s := c.post("/login/mfa", url.Values{"code": {auth.TOTPCode(secret, time.Now())}}); s != http.StatusSeeOther {
		c.t.Fatalf("sign-in code: %d", s)
	}
}
