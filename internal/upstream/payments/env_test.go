package payments_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/sandbox/kit"
	sandbox "github.com/payportal/portal/internal/sandbox/payments"
	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/upstream/payments"
)

// t0 is the start of every test's manual clock, well before the cut-off.
var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// sandboxOptions shortens the sandbox options type.
type sandboxOptions = sandbox.Options

// env is the sandbox's payment area on a real socket, what steers it, and
// a log of what both sides wrote.
type env struct {
	area   *sandbox.Area
	ts     *httptest.Server
	clock  *kit.ManualClock
	faults *kit.Injector
	acct   payments.Account
	logs   *syncBuffer
	waits  *testutil.Waits
	bodies *bodyLog
}

// newEnv starts the area with one provisioned account.
func newEnv(t *testing.T, mutate func(*sandbox.Options)) *env {
	t.Helper()
	store, err := kit.OpenStore("")
	if err != nil {
		t.Fatal(err)
	}
	faults, err := kit.NewInjector(kit.Faults{}, 11)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{clock: kit.NewManualClock(t0), faults: faults, logs: &syncBuffer{}, waits: &testutil.Waits{}, bodies: &bodyLog{}}
	logger := slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	opts := sandbox.Options{TimeoutDelay: 10 * time.Millisecond}
	if mutate != nil {
		mutate(&opts)
	}
	e.area, err = sandbox.New(kit.Env{Clock: e.clock, Faults: faults, Store: store, Log: logger, Admin: "admin"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	e.area.Mount(mux)
	e.ts = httptest.NewServer(e.bodies.wrap(mux))
	t.Cleanup(func() {
		e.ts.Close()
		_ = e.area.Close()
		_ = store.Close()
	})
	creds, err := e.area.Provision(context.Background(), kit.Merchant{ApplicationID: uuid.NewString(), Name: "Corner Bakery"})
	if err != nil {
		t.Fatal(err)
	}
	e.acct = payments.Account{OID: creds.OID, Token: creds.Token}
	return e
}

// client builds a client on the sandbox with tiny, recorded waits; mutate
// adjusts the config.
func (e *env) client(t *testing.T, mutate func(*payments.Config)) *payments.Client {
	t.Helper()
	cfg := payments.Config{
		BaseURL:        e.ts.URL + "/virtualterminal/v1",
		AppVersion:     "v1.4.0-3-gabc123+dirty",
		Timeout:        5 * time.Second,
		MaxAttempts:    4,
		RetryBaseDelay: time.Millisecond,
		RetryMaxDelay:  4 * time.Millisecond,
		MaxRetryAfter:  2 * time.Second,
		Now:            e.clock.Now,
		Sleep:          e.waits.Sleep,
		Logger:         slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	if mutate != nil {
		mutate(&cfg)
	}
	c, err := payments.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// count returns how many transactions the sandbox holds for the account.
func (e *env) count(t *testing.T) int {
	t.Helper()
	txns, err := e.area.Transactions(e.acct.OID, 0)
	if err != nil {
		t.Fatal(err)
	}
	return len(txns)
}

// bodyLog keeps the requests the sandbox received: method, path, headers
// and body.
type bodyLog struct {
	mu   sync.Mutex
	reqs []seenRequest
}

type seenRequest struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

func (b *bodyLog) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		b.mu.Lock()
		b.reqs = append(b.reqs, seenRequest{r.Method, r.URL.Path, r.Header.Clone(), raw})
		b.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(raw))
		next.ServeHTTP(w, r)
	})
}

func (b *bodyLog) all() []seenRequest {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]seenRequest(nil), b.reqs...)
}

// syncBuffer is a bytes.Buffer safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Test data.
const (
	visaNumber = "4111111111111111"
	routing    = "011401533"
)

func card(t *testing.T, number string) payments.Card {
	t.Helper()
	n, err := payments.NewCardNumber(number)
	if err != nil {
		t.Fatal(err)
	}
	code, err := payments.NewSecurityCode("123")
	if err != nil {
		t.Fatal(err)
	}
	return payments.Card{Number: n, Expiry: "12-30", SecurityCode: code}
}

func bank(t *testing.T, number string) payments.BankAccount {
	t.Helper()
	n, err := payments.NewBankAccountNumber(number)
	if err != nil {
		t.Fatal(err)
	}
	return payments.BankAccount{HolderName: "Dana Doe", Number: n, RoutingNumber: routing, Type: payments.Checking}
}

// newRef returns a Ref with a fresh externalTransactionId.
func newRef() payments.Ref {
	return payments.Ref{ExternalTransactionID: uuid.NewString(), TransactionReference: "INV-1001", CashierID: "cashier-1"}
}
