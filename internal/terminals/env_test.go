package terminals_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/payments"
	"github.com/payportal/portal/internal/sandbox/kit"
	sandbox "github.com/payportal/portal/internal/sandbox/terminals"
	"github.com/payportal/portal/internal/terminals"
	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/testutil/testdb"
	upstream "github.com/payportal/portal/internal/upstream/terminals"
)

// t0 is the start of every test's manual clock.
var t0 = time.Date(2026, 3, 2, 14, 0, 0, 0, time.UTC)

// env is the room on a fresh database, against the sandbox's terminal
// cloud behind a real socket, both on one manual clock.
type env struct {
	db        *database.DB
	clock     *upstream.ManualClock
	area      *sandbox.Area
	faults    *kit.Injector
	srv       *httptest.Server
	ledger    *payments.Ledger
	merchants *fakeMerchants
	merchant  *terminals.Merchant
	loc       terminals.Location
	cloud     *upstream.Client
	recheck   *upstream.Client
	svc       *terminals.Service
	user      *models.User
	// announced hears what the room and its ledger announce (the partner webhooks).
	announced *announcements
}

// fakeMerchants stands in for the merchants room in the room's own tests:
// one merchant, and each user's access to it.
type fakeMerchants struct {
	mu       sync.Mutex
	merchant *terminals.Merchant
	access   map[uuid.UUID]terminals.Access
}

func (f *fakeMerchants) TerminalAccess(_ context.Context, u *models.User, id uuid.UUID) (*terminals.Access, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	a, ok := f.access[u.ID]
	if !ok || id != f.merchant.ID {
		return nil, models.ErrNotFound
	}
	m := *f.merchant
	a.Merchant = &m
	return &a, nil
}

func (f *fakeMerchants) TerminalMerchant(_ context.Context, id uuid.UUID) (*terminals.Merchant, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id != f.merchant.ID {
		return nil, models.ErrNotFound
	}
	m := *f.merchant
	return &m, nil
}

func (f *fakeMerchants) grant(u *models.User, a terminals.Access) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.access[u.ID] = a
}

// everything is a merchant user's access with every right.
var everything = terminals.Access{UseTerminals: true, Refund: true, Void: true, Adjust: true}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{db: testdb.New(t), clock: upstream.NewManualClock(t0)}
	store, err := kit.OpenStore("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	if e.faults, err = kit.NewInjector(kit.Faults{}, 7); err != nil {
		t.Fatal(err)
	}
	kenv := kit.Env{Clock: e.clock, Faults: e.faults, Store: store, Log: slog.New(slog.DiscardHandler), Admin: kit.AdminGuard("admin")}
	if e.area, err = sandbox.New(kenv, sandbox.Options{}); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	e.area.Mount(mux)
	e.srv = httptest.NewServer(mux)
	t.Cleanup(e.srv.Close)
	creds, err := e.area.Provision(context.Background(), kit.Merchant{ApplicationID: uuid.NewString(), Name: "Corner Cafe"})
	if err != nil {
		t.Fatal(err)
	}
	e.loc = terminals.Location{ID: creds.Locations[0].LocationID, Name: "Corner Cafe", TestMode: true, APIKey: creds.APIKey}
	e.merchant = &terminals.Merchant{ID: uuid.New(), Name: "Corner Cafe", Locations: []terminals.Location{e.loc}}
	e.merchants = &fakeMerchants{merchant: e.merchant, access: map[uuid.UUID]terminals.Access{}}
	e.user = e.addUser(t, "ann@example.com", "Ann Cashier")
	e.merchants.grant(e.user, everything)
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	ring, err := fieldcrypt.ParseKeyRing("t", "t:"+base64.StdEncoding.EncodeToString(key))
	if err != nil {
		t.Fatal(err)
	}
	e.announced = &announcements{}
	e.ledger = payments.NewLedger(e.db.Pool, ring, e.clock.Now).AnnounceTo(e.announced)
	e.start(t, "first")
	return e
}

// start builds the room (a portal process) and starts its follower.
func (e *env) start(t *testing.T, follower string) *terminals.Service {
	t.Helper()
	var err error
	if e.cloud, err = upstream.New(upstream.Config{BaseURL: e.srv.URL, Clock: e.clock, MaxAttempts: 1}); err != nil {
		t.Fatal(err)
	}
	if e.recheck, err = upstream.New(upstream.Config{BaseURL: e.srv.URL, Clock: e.clock, MaxAttempts: 1, Poll: terminals.RecheckPolicy()}); err != nil {
		t.Fatal(err)
	}
	svc, err := terminals.NewService(terminals.Deps{Pool: e.db.Pool, Merchants: e.merchants, Ledger: e.ledger,
		Cloud: e.cloud, Recheck: e.recheck, Clock: e.clock, Follow: terminals.FollowConfig{Follower: follower},
		Announcer: e.announced, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	svc.Start(context.Background())
	t.Cleanup(func() { _ = svc.Stop(context.Background()) })
	<-svc.Started()
	e.svc = svc
	return svc
}

// addUser inserts an active user.
func (e *env) addUser(t testing.TB, email, name string) *models.User {
	t.Helper()
	u := &models.User{ID: uuid.New(), Email: email, Name: name, Role: models.RoleSalesRep, Active: true}
	_, err := e.db.Pool.Exec(context.Background(), `INSERT INTO users (id, email, name, role, password_hash, active, created_at, updated_at)
		VALUES ($1, $2, $3, $4, 'x', true, now(), now())`, u.ID, u.Email, u.Name, u.Role)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// devices downloads the location's devices as a person would.
func (e *env) devices(t *testing.T) {
	t.Helper()
	if err := e.svc.Refresh(context.Background(), e.user, e.merchant.ID, e.loc.ID); err != nil {
		t.Fatal(err)
	}
}

// launch launches req as u and fails the test on an error.
func (e *env) launch(t *testing.T, u *models.User, req terminals.LaunchRequest) *terminals.Launch {
	t.Helper()
	l, err := e.try(u, req)
	if err != nil {
		t.Fatalf("launch %+v: %v", req, err)
	}
	return l
}

func (e *env) try(u *models.User, req terminals.LaunchRequest) (*terminals.Launch, error) {
	if req.FormToken == "" {
		req.FormToken = uuid.NewString()
	}
	if req.LocationID == "" {
		req.LocationID = e.loc.ID
	}
	if req.Device == "" {
		req.Device = "EMULATOR"
	}
	return e.svc.Launch(context.Background(), u, e.merchant.ID, req)
}

// sale is a sale request of amount on device.
func sale(amount, invoice, device string) terminals.LaunchRequest {
	return terminals.LaunchRequest{Kind: "sale", Amount: amount, Invoice: invoice, Device: device}
}

// load reads a launch.
func (e *env) load(t *testing.T, id uuid.UUID) *terminals.Launch {
	t.Helper()
	l, err := e.svc.Store().Launch(context.Background(), nil, id)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// advance moves the one clock of the cloud and the room by d once the
// room's follower waits on it, as the cardholder's time passing.
func (e *env) advance(d time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = e.clock.WaitForTimers(ctx, 1)
	e.clock.Advance(d)
}

// finished moves the clock by d (the cardholder's time) and waits for the
// follower to record the launch's outcome.
func (e *env) finished(t *testing.T, id uuid.UUID, d time.Duration) *terminals.Launch {
	t.Helper()
	return e.after(t, id, d, func(l *terminals.Launch) bool { return !l.State.Open() })
}

// after moves the clock by d and waits until the launch satisfies done.
func (e *env) after(t *testing.T, id uuid.UUID, d time.Duration, done func(*terminals.Launch) bool) *terminals.Launch {
	t.Helper()
	e.advance(d)
	var l *terminals.Launch
	testutil.Eventually(t, 10*time.Second, "the launch's news to be recorded", func() (bool, string) {
		l = e.load(t, id)
		return done(l), string(l.State)
	})
	return l
}

// sandboxTx is the sandbox admin's view of a transaction.
type sandboxTx struct {
	UniqueTransID  string `json:"uniqueTransId"`
	TransactionRef string `json:"transactionRef"`
	Type           string `json:"transactionType"`
	Approved       bool   `json:"approved"`
	FromLogFile    bool   `json:"fromLogFile"`
}

// sandboxTransactions lists what the sandbox ran, newest first.
func (e *env) sandboxTransactions(t *testing.T) []sandboxTx {
	t.Helper()
	var txs []sandboxTx
	e.adminJSON(t, http.MethodGet, "/transactions?limit=500", "", &txs)
	return txs
}

// adminJSON calls the sandbox's terminals admin JSON.
func (e *env) adminJSON(t testing.TB, method, path, body string, out any) {
	t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), method, e.srv.URL+"/_sandbox/admin/api/terminals"+path, strings.NewReader(body))
	req.SetBasicAuth("admin", "admin")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
	}
}

// ledgerLine reads a launch's line of the ledger.
func (e *env) ledgerLine(t *testing.T, id uuid.UUID) *payments.Transaction {
	t.Helper()
	tx, err := e.ledger.Get(context.Background(), nil, e.merchant.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	return tx
}
