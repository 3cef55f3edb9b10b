package payments_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payportal/portal/internal/app"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/jobs"
	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/payments"
	"github.com/payportal/portal/internal/sandbox"
	"github.com/payportal/portal/internal/sandbox/accounts"
	"github.com/payportal/portal/internal/sandbox/kit"
	sbpayments "github.com/payportal/portal/internal/sandbox/payments"
	"github.com/payportal/portal/internal/testutil/testdb"
	upstream "github.com/payportal/portal/internal/upstream/payments"
)

// svcEnv is the payments service on a fresh database, against the sandbox's
// area B over HTTP, with its background check running.
type svcEnv struct {
	t        *testing.T
	db       *database.DB
	sb       *app.RunningSandbox
	svc      *payments.Service
	client   *upstream.Client
	merchant *payments.Merchant
	user     *models.User
	now      *clock
	ms       *fakeMerchants
	sbClock  *kit.ManualClock
}

const svcAdminToken = "sandbox-admin"

type svcOptions struct {
	checkEvery, grace time.Duration
	callTimeout       time.Duration
	rights            []payments.Permission
	// tracer, when set, sees every statement the payments service sends
	// (the service gets a pool of its own with it).
	tracer pgx.QueryTracer
}

func newSvcEnv(t *testing.T, o svcOptions) *svcEnv {
	t.Helper()
	db, dbURL := testdb.NewWithURL(t)
	sbClock := kit.NewManualClock(time.Now().UTC())
	sb, err := app.StartSandboxServer("127.0.0.1:0", sandbox.Options{AdminToken: svcAdminToken, Clock: sbClock, Accounts: accounts.Options{Tokens: []string{"unused"}},
		WithoutPaymentsAndTerminals: false, PaymentsOptions: sbpayments.Options{RateLimit: -1},
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sb.Close(context.Background()) })
	e := &svcEnv{t: t, db: db, sb: sb, now: &clock{at: time.Now().UTC()}, sbClock: sbClock}
	acct := e.openAccount("Corner Bakery")
	e.client, err = upstream.New(upstream.Config{BaseURL: sb.URL + "/virtualterminal/v1", AppVersion: "test",
		RetryBaseDelay: 5 * time.Millisecond, RetryMaxDelay: 20 * time.Millisecond, MaxRetryAfter: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	ring, err := fieldcrypt.NewKeyRing("k", map[string][]byte{"k": key})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	q, err := jobs.New(db.Pool, jobs.Config{RunWorkers: true, Concurrency: 4, PollInterval: 20 * time.Millisecond,
		JobTimeout: time.Minute, RescueAfter: 2 * time.Minute, ShutdownTimeout: time.Second,
		RetryDelay: func(int) time.Duration { return 20 * time.Millisecond }}, log)
	if err != nil {
		t.Fatal(err)
	}
	outbox := mail.NewOutbox(mail.Deps{Pool: db.Pool, Queue: q, Now: e.now.Now, Log: log})
	rights := o.rights
	if rights == nil {
		rights = []payments.Permission{payments.PermView, payments.PermTakePayments, payments.PermCaptureAdjust,
			payments.PermVoid, payments.PermRefund, payments.PermSavedMethods}
	}
	e.merchant = &payments.Merchant{ID: uuid.New(), Name: "Corner Bakery", Account: acct, HasPaymentAccount: true,
		Rights: map[payments.Permission]bool{}, SeesPersonalData: true}
	for _, r := range rights {
		e.merchant.Rights[r] = true
	}
	e.ms = &fakeMerchants{m: e.merchant}
	pool := db.Pool
	if o.tracer != nil {
		cfg, err := pgxpool.ParseConfig(dbURL)
		if err != nil {
			t.Fatal(err)
		}
		cfg.ConnConfig.Tracer = o.tracer
		if pool, err = pgxpool.NewWithConfig(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
	}
	e.svc = payments.NewService(payments.Deps{Pool: pool, Ring: ring, Ledger: payments.NewLedger(pool, ring, e.now.Now),
		Upstream: e.client, Merchants: e.ms, Queue: q, Outbox: outbox,
		Config: payments.Config{CheckEvery: o.checkEvery, CheckGrace: o.grace, CallTimeout: o.callTimeout, ResellerName: "Test Payments"},
		Now:    e.now.Now, Log: log})
	if err := q.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = q.StopAndCancel(context.Background()) })
	e.user = e.insertUser("Casey Cashier")
	return e
}

func (e *svcEnv) insertUser(name string) *models.User {
	e.t.Helper()
	u := &models.User{ID: uuid.New(), Email: uuid.NewString() + "@example.com", Name: name, Role: models.RoleAdmin}
	if _, err := e.db.Pool.Exec(context.Background(), `INSERT INTO users (id, email, name, role, password_hash) VALUES ($1, $2, $3, 'admin', 'x')`,
		u.ID, u.Email, u.Name); err != nil {
		e.t.Fatal(err)
	}
	return u
}

// openAccount opens a payment account at the sandbox (its admin JSON).
func (e *svcEnv) openAccount(name string) upstream.Account {
	e.t.Helper()
	var acct struct{ OID, Token string }
	e.adminJSON(http.MethodPost, "/_sandbox/admin/api/payments/accounts", map[string]string{"name": name}, &acct)
	return upstream.Account{OID: acct.OID, Token: acct.Token}
}

// adminJSON calls the sandbox's admin JSON API.
func (e *svcEnv) adminJSON(method, path string, body, out any) {
	e.t.Helper()
	adminCall(e.t, e.sb.URL, method, path, body, out, svcAdminToken)
}

func adminCall(t testing.TB, base, method, path string, body, out any, token string) {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", base)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode >= 300 {
		t.Fatalf("%s %s: %d", method, path, res.StatusCode)
	}
	if out != nil {
		if err := json.NewDecoder(res.Body).Decode(out); err != nil {
			t.Fatal(err)
		}
	}
}

// upstreamTransaction is a transaction as the sandbox's admin JSON lists it.
type upstreamTransaction struct {
	UniqueTransID string `json:"uniqueTransId"`
	ExternalID    string `json:"externalTransactionId"`
	Type          string `json:"transactionType"`
	Approved      bool   `json:"approved"`
	Status        string `json:"status"`
}

// upstreamTransactions lists the account's transactions at the sandbox.
func (e *svcEnv) upstreamTransactions() []upstreamTransaction {
	e.t.Helper()
	var list []upstreamTransaction
	e.adminJSON(http.MethodGet, "/_sandbox/admin/api/payments/transactions?oid="+e.merchant.Account.OID, nil, &list)
	return list
}

func (e *svcEnv) settle() {
	e.t.Helper()
	e.adminJSON(http.MethodPost, "/_sandbox/admin/api/payments/settle", map[string]string{"oid": e.merchant.Account.OID}, nil)
}

type fakeMerchants struct {
	mu sync.Mutex // guards m's rights, which a test may change (setRights)
	m  *payments.Merchant
}

// merchant is a copy of the merchant with its rights of the moment.
func (f *fakeMerchants) merchant() payments.Merchant {
	f.mu.Lock()
	defer f.mu.Unlock()
	cp := *f.m
	cp.Rights = maps.Clone(f.m.Rights)
	return cp
}

// setRights gives the user exactly rights on the merchant from now on.
func (f *fakeMerchants) setRights(rights ...payments.Permission) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.m.Rights = map[payments.Permission]bool{}
	for _, r := range rights {
		f.m.Rights[r] = true
	}
}

// setSuspended suspends the merchant, or lifts the suspension.
func (f *fakeMerchants) setSuspended(suspended bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.m.Suspended = suspended
}

func (f *fakeMerchants) ForUser(_ context.Context, _ *models.User, id uuid.UUID) (*payments.Merchant, error) {
	if id != f.m.ID {
		return nil, models.ErrNotFound
	}
	cp := f.merchant()
	cp.Account = upstream.Account{} // as the merchants room: credentials only for an action
	return &cp, nil
}

func (f *fakeMerchants) ForAction(ctx context.Context, u *models.User, id uuid.UUID,
	choose func(*payments.Merchant) (payments.Permission, error)) (*payments.Merchant, error) {
	m, err := f.ForUser(ctx, u, id)
	if err != nil {
		return nil, err
	}
	if _, err := choose(m); err != nil {
		return nil, err
	}
	m.Account = f.m.Account
	return m, nil
}

func (f *fakeMerchants) ForSystem(_ context.Context, id uuid.UUID) (*payments.Merchant, error) {
	if id != f.m.ID {
		return nil, models.ErrNotFound
	}
	cp := f.merchant()
	return &cp, nil
}

type clock struct {
	mu sync.Mutex
	at time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.at }

func (c *clock) Advance(d time.Duration) { c.mu.Lock(); c.at = c.at.Add(d); c.mu.Unlock() }

// cardForm is a card sale form with a fresh token.
func (e *svcEnv) cardForm(number, amount string) *payments.CardPaymentForm {
	e.t.Helper()
	token, err := e.svc.MintToken(e.merchant, e.user, "pay")
	if err != nil {
		e.t.Fatal(err)
	}
	f := &payments.CardPaymentForm{FormToken: token, Action: "sale", Amount: amount, Expiry: "12/" + fmt.Sprint(time.Now().Year()%100+3),
		BillingZIP: "94107", Reference: "INV-100"}
	_ = f.CardNumber.UnmarshalParam(number)
	_ = f.SecurityCode.UnmarshalParam("123")
	if len(number) == 15 {
		_ = f.SecurityCode.UnmarshalParam("8214")
	}
	return f
}
