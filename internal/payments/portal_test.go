package payments_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/merchants"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/payments"
	"github.com/payportal/portal/internal/sandbox/accounts"
	"github.com/payportal/portal/internal/sandbox/kit"
	sbpayments "github.com/payportal/portal/internal/sandbox/payments"
	"github.com/payportal/portal/internal/testutil/apptest"
	upstream "github.com/payportal/portal/internal/upstream/payments"
)

// portal is the whole portal against the sandbox over HTTP, with a boarded
// merchant holding a sandbox payment account, and a member of it with every
// payment right, signed in.
type portal struct {
	t        testing.TB
	env      *apptest.Env
	clock    *kit.ManualClock // the sandbox's
	logs     *logBuffer       // every line the portal logged
	merchant uuid.UUID
	oid      string
	account  upstream.Account
	admin    *models.User
	repPW    string
	staff    *models.User
	password string
	c        *apptest.Client
}

// allRights are every payment right of the one list.
var allRights = []merchants.Permission{merchants.PermTakePayments, merchants.PermCaptureAdjust, merchants.PermVoid,
	merchants.PermRefund, merchants.PermSavedMethods}

func newPortal(t testing.TB, opts ...apptest.Option) *portal {
	t.Helper()
	clock := kit.NewManualClock(time.Now().UTC().Truncate(time.Second))
	logs := &logBuffer{}
	base := []apptest.Option{
		apptest.WithLogger(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		apptest.WithSandbox(func(o *accounts.Options) { o.Clock = clock }),
		apptest.WithPaymentsSandbox(func(o *sbpayments.Options) { o.RateLimit = -1 }),
		apptest.WithEnv("PORTAL_PAYMENTS_CHECK_EVERY", "200ms"),
	}
	p := &portal{t: t, env: apptest.New(t, append(base, opts...)...), clock: clock, logs: logs}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the portal's log:\n%s", logs.String())
		}
	})
	ctx := context.Background()
	p.admin, _ = p.env.CreateUser(t, "admin@example.com", models.RoleAdmin)
	rep, repPW := p.env.CreateUser(t, "rep@example.com", models.RoleSalesRep)
	p.repPW = repPW
	p.merchant = p.board(rep, "Corner Bakery")
	var acct struct{ OID, Token string }
	p.adminJSON(http.MethodPost, "/_sandbox/admin/api/payments/accounts", map[string]string{"name": "Corner Bakery"}, &acct)
	p.oid, p.account = acct.OID, upstream.Account{OID: acct.OID, Token: acct.Token}
	if err := p.env.App.Merchants.SetPaymentAccount(ctx, p.admin, p.merchant, merchants.PaymentInput{OID: acct.OID, Token: acct.Token}); err != nil {
		t.Fatal(err)
	}
	p.staff, p.password, p.c = p.member("cashier@bakery.example", allRights...)
	return p
}

// board stores a linked application of owner and boards it by webhook.
func (p *portal) board(owner *models.User, name string) uuid.UUID {
	t := p.t
	t.Helper()
	now := time.Now()
	upID := uuid.NewString()
	a := &models.Application{ID: uuid.New(), OwnerID: owner.ID, Status: models.StatusLinked, Version: 1, LegalName: name + " LLC",
		DBA: name, ContactName: "Jane Doe", ContactEmail: "jane@bakery.example", UpstreamApplicationID: &upID,
		HandoffLink: new("https://upstream.example/app/" + upID), LinkedAt: &now, CreatedAt: now, UpdatedAt: now, SubmissionCount: 1}
	var err error
	if a.Draft, err = p.env.App.Sealer.SealJSON(a.ID, drafts.Draft{Business: drafts.Business{LegalName: a.LegalName, DBA: name}}); err != nil {
		t.Fatal(err)
	}
	if err := p.env.DB.Gorm.Create(a).Error; err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"id": upID, "status": "boarded", "created": now.Add(-time.Hour).UnixMilli(),
		"token": p.env.Config.Upstream.WebhookToken})
	res, err := http.Post(p.env.URL+"/webhooks/upstream", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	id, ok, err := p.env.App.Merchants.Store().IDOfApplication(context.Background(), a.ID)
	if err != nil || !ok {
		t.Fatalf("no merchant after boarding (%d, %v)", res.StatusCode, err)
	}
	return id
}

// member invites a merchant user of the merchant with perms, accepts the
// e-mailed invitation with a password, sets up two-step sign-in when the
// rights need it, and signs them in.
func (p *portal) member(email string, perms ...merchants.Permission) (*models.User, string, *apptest.Client) {
	t := p.t
	t.Helper()
	return memberOf(t, p.env, p.admin, p.merchant, email, perms...)
}

func memberOf(t testing.TB, env *apptest.Env, admin *models.User, merchantID uuid.UUID, email string, perms ...merchants.Permission) (*models.User, string, *apptest.Client) {
	t.Helper()
	ctx := context.Background()
	if _, err := env.App.Merchants.Invite(ctx, admin, merchantID, merchants.MemberInput{Email: email, Name: "Staff " + email,
		Permissions: perms}); err != nil {
		t.Fatal(err)
	}
	link := env.InvitationLink(t, admin, email)
	c := env.Client(t)
	password := "Correct-horse-battery-staple-" + uuid.NewString()[:6]
	c.Get(link)
	res := c.PostForm(link, url.Values{"new_password": {password}, "confirm_password": {password}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("accept the invitation of %s: %d\n%s", email, res.Status, res.Body)
	}
	u, err := env.App.Auth.Users().ByEmail(ctx, email)
	if err != nil {
		t.Fatal(err)
	}
	if res.Location == "/login/mfa/setup" {
		env.EnrolMFA(t, u)
		c = env.Client(t)
		c.Login(email, password)
	}
	if u, err = env.App.Auth.Users().ByID(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	return u, password, c
}

func (p *portal) base() string { return "/merchants/" + p.merchant.String() }

func (p *portal) adminJSON(method, path string, body, out any) {
	p.t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, p.env.Sandbox.URL+path, rd)
	if err != nil {
		p.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+p.env.Config.Sandbox.AdminToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", p.env.Sandbox.URL)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode >= 300 {
		p.t.Fatalf("sandbox admin %s %s: %d", method, path, res.StatusCode)
	}
	if out != nil {
		if err := json.NewDecoder(res.Body).Decode(out); err != nil {
			p.t.Fatal(err)
		}
	}
}

// upstream lists the account's transactions as the sandbox holds them.
func (p *portal) upstream() []upstreamTransaction {
	p.t.Helper()
	var list []upstreamTransaction
	p.adminJSON(http.MethodGet, "/_sandbox/admin/api/payments/transactions?oid="+p.oid, nil, &list)
	return list
}

// upstreamOf counts the sandbox's transactions of a type.
func (p *portal) upstreamOf(typ string) int {
	n := 0
	for _, u := range p.upstream() {
		if u.Type == typ {
			n++
		}
	}
	return n
}

func (p *portal) settle() {
	p.t.Helper()
	p.adminJSON(http.MethodPost, "/_sandbox/admin/api/payments/settle", map[string]string{"oid": p.oid}, nil)
}

var tokenPattern = regexp.MustCompile(`name="form_token" value="([^"]+)"`)

// token loads page and returns the form token of its n-th payment form.
func (p *portal) token(c *apptest.Client, page string, n int) string {
	p.t.Helper()
	res := c.Get(page)
	m := tokenPattern.FindAllStringSubmatch(res.Body, -1)
	if res.Status != http.StatusOK || len(m) <= n {
		p.t.Fatalf("GET %s: %d, %d form tokens\n%s", page, res.Status, len(m), res.Body)
	}
	return strings.ReplaceAll(m[n][1], "&#43;", "+")
}

// cardSale posts a keyed card sale as the page does and returns the response.
func (p *portal) cardSale(c *apptest.Client, number, code, amount string, extra url.Values) apptest.Response {
	p.t.Helper()
	form := url.Values{"form_token": {p.token(c, p.base()+"/payments/new", 0)}, "action": {"sale"}, "amount": {amount},
		"card_number": {number}, "expiry": {expiry()}, "security_code": {code}, "billing_zip": {"94107"}, "reference": {"INV-42"}}
	for k, v := range extra {
		form[k] = v
	}
	return c.PostForm(p.base()+"/payments/card", form)
}

// expiry is a card expiry three years ahead, as typed.
func expiry() string { return fmt.Sprintf("08/%02d", time.Now().Year()%100+3) }

// txOf reads the transaction a redirect points at.
func (p *portal) txOf(res apptest.Response) *payments.Transaction {
	p.t.Helper()
	if res.Status != http.StatusSeeOther || !strings.Contains(res.Location, "/transactions/") {
		p.t.Fatalf("want a redirect to a transaction, got %d %s\n%s", res.Status, res.Location, res.Body)
	}
	id, err := uuid.Parse(res.Location[strings.LastIndex(res.Location, "/")+1:])
	if err != nil {
		p.t.Fatal(err)
	}
	return p.tx(id)
}

func (p *portal) tx(id uuid.UUID) *payments.Transaction {
	p.t.Helper()
	t, err := p.env.App.Payments.Ledger().Get(context.Background(), nil, p.merchant, id)
	if err != nil {
		p.t.Fatal(err)
	}
	return t
}

// cardSaleNoToken posts a sale with a token minted for the staff member
// directly (the page may refuse to render, e.g. for a suspended merchant).
func (p *portal) cardSaleNoToken(c *apptest.Client, number, amount string) apptest.Response {
	p.t.Helper()
	token, err := p.env.App.Payments.MintToken(&payments.Merchant{ID: p.merchant}, p.staff, payments.PurposePay)
	if err != nil {
		p.t.Fatal(err)
	}
	return c.PostForm(p.base()+"/payments/card", url.Values{"form_token": {token}, "action": {"sale"}, "amount": {amount},
		"card_number": {number}, "expiry": {expiry()}})
}

// logBuffer keeps the portal's log lines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(b)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}
