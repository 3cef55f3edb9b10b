package payments_test

import (
	"bytes"
	"context"
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

	"github.com/payportal/portal/internal/sandbox/kit"
	"github.com/payportal/portal/internal/sandbox/payments"
)

// optionsT shortens the options' type in tests.
type optionsT = payments.Options

// credentials builds an account's credentials.
func credentials(oid, token string) kit.PaymentCredentials {
	return kit.PaymentCredentials{OID: oid, Token: token}
}

// mustJSON encodes v.
func mustJSON(v any) string {
	raw, _ := json.Marshal(v)
	return string(raw)
}

// jsonArray decodes a JSON array.
func jsonArray(raw []byte, v any) error { return json.Unmarshal(raw, v) }

// adminToken guards the test sandboxes' admin surface.
const adminToken = "admin-test-token"

// t0 is the start of every test's manual clock: a Monday morning, well
// before the 22:00 cut-off.
var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// env is the area on a real socket plus what tests steer it with.
type env struct {
	area   *payments.Area
	ts     *httptest.Server
	clock  *kit.ManualClock
	faults *kit.Injector
	store  *kit.Store
	logs   *syncBuffer
	wall   *wallClock
	acct   kit.PaymentCredentials
}

// newEnv mounts a fresh area behind httptest and opens one account.
func newEnv(t *testing.T, mutate func(*payments.Options)) *env {
	t.Helper()
	store, err := kit.OpenStore("")
	if err != nil {
		t.Fatal(err)
	}
	faults, err := kit.NewInjector(kit.Faults{}, 7)
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	e := &env{clock: kit.NewManualClock(t0), faults: faults, store: store, logs: logs, wall: &wallClock{now: t0}}
	kenv := kit.Env{Clock: e.clock, Faults: faults, Store: store, Admin: kit.AdminGuard(adminToken),
		Log: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	opts := payments.Options{TimeoutDelay: 20 * time.Millisecond, WallClock: e.wall.Now}
	if mutate != nil {
		mutate(&opts)
	}
	if e.area, err = payments.New(kenv, opts); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	e.area.Mount(mux)
	mux.HandleFunc("GET "+kit.StylesheetPath, kit.ServeStylesheet) // the server's, for the page tests
	e.ts = httptest.NewServer(mux)
	t.Cleanup(func() {
		e.ts.Close()
		_ = e.area.Close()
		_ = store.Close()
	})
	if e.acct, err = e.area.Provision(context.Background(), kit.Merchant{ApplicationID: uuid.NewString(), Name: "Corner Bakery"}); err != nil {
		t.Fatal(err)
	}
	return e
}

// reply is an answer of the API.
type reply struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    []byte
}

// txn returns the transactionResponse object.
func (r reply) txn(t *testing.T) map[string]any {
	t.Helper()
	m, ok := r.Body["transactionResponse"].(map[string]any)
	if !ok {
		t.Fatalf("no transactionResponse in %d %s", r.Status, r.Raw)
	}
	return m
}

// field returns a string field of the transactionResponse.
func (r reply) field(t *testing.T, name string) string {
	t.Helper()
	s, _ := r.txn(t)[name].(string)
	return s
}

// call sends a request to the API as acct, with optional headers.
func (e *env) call(t *testing.T, method, path string, acct kit.PaymentCredentials, body any, headers ...string) reply {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, e.ts.URL+"/virtualterminal/v1/orgs/"+acct.OID+"/transactions/"+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if acct.Token != "" {
		req.Header.Set("Authorization", "Bearer "+acct.Token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header[headers[i]] = []string{headers[i+1]}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := reply{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	_ = json.Unmarshal(raw, &r.Body)
	return r
}

// put sends an operation as the test account.
func (e *env) put(t *testing.T, op string, body any, headers ...string) reply {
	t.Helper()
	return e.call(t, http.MethodPut, op, e.acct, body, headers...)
}

// get reads a transaction back as the test account.
func (e *env) get(t *testing.T, externalID string) reply {
	t.Helper()
	return e.call(t, http.MethodGet, externalID, e.acct, nil)
}

// admin calls the admin JSON API.
func (e *env) admin(t *testing.T, method, path string, body any) reply {
	t.Helper()
	var rd io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		rd = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(method, e.ts.URL+"/_sandbox/admin/api/payments/"+path, rd)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := reply{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	_ = json.Unmarshal(raw, &r.Body)
	return r
}

// data wraps fields in transactionData.
func data(fields map[string]any) map[string]any { return map[string]any{"transactionData": fields} }

// account wraps fields in accountData.
func account(fields map[string]any) map[string]any { return map[string]any{"accountData": fields} }

// with returns a copy of base with the changes applied; a nil value
// removes the field.
func with(base map[string]any, changes map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range changes {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}

// Test data.
const (
	visa      = "4111111111111111"
	amex      = "378282246310005"
	routing   = "011401533"
	bankAcct  = "000123456789"
	expiry    = "12-30"
	pastMonth = "02-26" // the month before t0
)

// sale returns the fields of a keyed card sale with a fresh id.
func sale(card, amount string) map[string]any {
	return map[string]any{"amount": amount, "cardNumber": card, "cardExpirationDate": expiry,
		"externalTransactionId": uuid.NewString()}
}

// ach returns the fields of an ACH sale with a fresh id.
func ach(number, amount string) map[string]any {
	return map[string]any{"amount": amount, "accountHolderName": "Dana Doe", "accountNumber": number,
		"routingNumber": routing, "externalTransactionId": uuid.NewString()}
}

// mustOK fails unless r is a 200 with resultStatus "true".
func mustOK(t *testing.T, r reply) reply {
	t.Helper()
	if r.Status != http.StatusOK || r.field(t, "resultStatus") != "true" {
		t.Fatalf("want an approval, got %d %s", r.Status, r.Raw)
	}
	return r
}

// wantError checks a refusal's status and that its message names field.
func wantError(t *testing.T, r reply, status int, field string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Raw)
	}
	msg, _ := r.Body["message"].(string)
	if msg == "" || !strings.Contains(msg, field) {
		t.Fatalf("message %q does not name %q", msg, field)
	}
}

// wallClock is the rate limiter's clock in tests.
type wallClock struct {
	mu  sync.Mutex
	now time.Time
}

func (w *wallClock) Now() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.now
}

func (w *wallClock) Advance(d time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.now = w.now.Add(d)
}

// syncBuffer is a bytes.Buffer safe for a logger's concurrent writes.
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
