package sandbox_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/sandbox"
	"github.com/payportal/portal/internal/sandbox/accounts"
	"github.com/payportal/portal/internal/sandbox/kit"
)

const (
	token      = "api-token"
	adminToken = "admin-token"
)

var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// testServer is a sandbox server on a real socket.
type testServer struct {
	*sandbox.Server
	url   string
	clock *kit.ManualClock
	log   *syncBuffer
}

// syncBuffer collects log output from several goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func newServer(t *testing.T, mutate func(*sandbox.Options)) *testServer {
	t.Helper()
	clock := kit.NewManualClock(t0)
	logs := &syncBuffer{}
	opts := sandbox.Options{
		AdminToken: adminToken, Clock: clock, Seed: 1,
		Logger: slog.New(slog.NewTextHandler(logs, nil)),
		Accounts: accounts.Options{
			Tokens: []string{token}, PricingCodes: []string{"P1"}, ObjectDir: t.TempDir(),
			UnderwritingDelay: time.Minute,
		},
	}
	if mutate != nil {
		mutate(&opts)
	}
	if mc, ok := opts.Clock.(*kit.ManualClock); ok {
		clock = mc
	}
	s, err := sandbox.New(opts)
	if err != nil {
		t.Fatalf("sandbox.New: %v", err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() { ts.Close(); _ = s.Close() })
	if err := s.SetPublicBaseURL(ts.URL); err != nil {
		t.Fatal(err)
	}
	return &testServer{Server: s, url: ts.URL, clock: clock, log: logs}
}

// do makes a request; body is JSON unless it is url.Values.
func (s *testServer) do(t *testing.T, method, path, bearer string, body any) (*http.Response, string) {
	t.Helper()
	var r io.Reader
	ctype := "application/json"
	switch b := body.(type) {
	case nil:
	case url.Values:
		r, ctype = strings.NewReader(b.Encode()), "application/x-www-form-urlencoded"
	default:
		raw, _ := json.Marshal(b)
		r = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(method, s.url+path, r)
	req.Header.Set("Content-Type", ctype)
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, string(raw)
}

// accepted starts an application with every required detail, opens its
// link and accepts the terms.
func (s *testServer) accepted(t *testing.T, dba string) string {
	t.Helper()
	resp, body := s.do(t, http.MethodPost, "/v2/application/start", token, map[string]any{
		"externalApplicationId": uuid.NewString(), "pricingCode": "P1",
		"business": map[string]any{"dba": dba, "goodsAndServices": "Coffee", "phone": "5125550134", "email": "a@corner.example",
			"address": map[string]any{"line1": "1 Main St", "city": "Austin", "state": "TX", "postalCode": "78701"}},
		"legalEntity": map[string]any{"type": "llc", "name": dba + " LLC", "tin": "123456789"},
		"owners":      []any{map[string]any{"firstName": "Ada", "lastName": "Lovelace", "percentOwnership": 100, "ssn": "123456789", "dob": "1980-12-10"}},
		"banking":     map[string]any{"depositAccount": "000123456789", "depositRouting": "011401533"},
	})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("start: %d %s", resp.StatusCode, body)
	}
	var out struct{ ApplicationID string }
	_ = json.Unmarshal([]byte(body), &out)
	id := out.ApplicationID
	s.do(t, http.MethodPost, "/v2/application/"+id+"/link", token, nil)
	s.do(t, http.MethodGet, "/app/"+id, "", nil)
	if resp, _ := s.do(t, http.MethodPost, "/app/"+id+"/terms", "", url.Values{"accept": {"yes"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("accept: %d", resp.StatusCode)
	}
	return id
}

func TestSecurityHeadersOnEveryAnswer(t *testing.T) {
	s := newServer(t, nil)
	for _, p := range []struct{ method, path, bearer string }{
		{http.MethodPost, "/v2/application/start", ""},
		{http.MethodGet, "/app/" + uuid.NewString(), ""},
		{http.MethodGet, "/_sandbox/admin", ""},
		{http.MethodGet, "/_sandbox/admin", adminToken},
		{http.MethodGet, "/_sandbox/admin/accounts", adminToken},
		{http.MethodGet, kit.StylesheetPath, ""},
		{http.MethodGet, kit.ScriptPath, ""},
		{http.MethodGet, "/nowhere", ""},
	} {
		resp, _ := s.do(t, p.method, p.path, p.bearer, nil)
		h := resp.Header
		if !strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors 'none'") || h.Get("X-Frame-Options") != "DENY" ||
			h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s %s (%d): headers %v", p.method, p.path, resp.StatusCode, h)
		}
	}
}

func TestRequestLogNeverHoldsTheQuery(t *testing.T) {
	s := newServer(t, nil)
	s.do(t, http.MethodPut, "/_store/"+uuid.NewString()+"/"+uuid.NewString()+"?X-Amz-Signature=topsecret", "", nil)
	logs := s.log.String()
	if !strings.Contains(logs, "sandbox request") || !strings.Contains(logs, "/_store/") {
		t.Errorf("no request line:\n%s", logs)
	}
	if strings.Contains(logs, "topsecret") {
		t.Errorf("the query reached the log:\n%s", logs)
	}
	if n := strings.Count(logs, "msg=\"sandbox request\""); n != 1 {
		t.Errorf("%d request lines for one request", n)
	}
}

func TestUnknownPricingCodeRefusedByDefault(t *testing.T) {
	s := newServer(t, func(o *sandbox.Options) { o.Accounts.PricingCodes = nil })
	resp, body := s.do(t, http.MethodPost, "/v2/application/start", token,
		map[string]any{"externalApplicationId": uuid.NewString(), "pricingCode": "P1"})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `\"P1\" is not a pricing code issued to this partner`) {
		t.Errorf("start with a code never issued: %d %s", resp.StatusCode, body)
	}
}

func TestOverviewClockAndFaults(t *testing.T) {
	s := newServer(t, nil)
	resp, body := s.do(t, http.MethodGet, "/_sandbox/admin", adminToken, nil)
	for _, want := range []string{`href="/_sandbox/admin/accounts"`, "manual clock", `id="advance"`, `name="actThenDropRate"`} {
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("overview (%d) lacks %q", resp.StatusCode, want)
		}
	}
	if resp, _ := s.do(t, http.MethodGet, "/_sandbox/admin", "", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("overview without the token: %d", resp.StatusCode)
	}

	resp, body = s.do(t, http.MethodPost, "/_sandbox/admin/api/clock/advance", adminToken, map[string]string{"by": "2m"})
	if resp.StatusCode != http.StatusOK || !s.clock.Now().Equal(t0.Add(2*time.Minute)) {
		t.Errorf("advance: %d %s, clock %v", resp.StatusCode, body, s.clock.Now())
	}
	if resp, _ := s.do(t, http.MethodPost, "/_sandbox/admin/api/clock/advance", adminToken, map[string]string{"by": "-1m"}); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("negative advance: %d", resp.StatusCode)
	}
	resp, _ = s.do(t, http.MethodPost, "/_sandbox/admin/clock/advance", adminToken, url.Values{"by": {"1h"}})
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || !strings.Contains(loc, "notice=") || !s.clock.Now().Equal(t0.Add(62*time.Minute)) {
		t.Errorf("advance form: %d %s, clock %v", resp.StatusCode, loc, s.clock.Now())
	}

	resp, body = s.do(t, http.MethodPut, "/_sandbox/admin/api/faults", adminToken, map[string]any{"urlLifetime": "10s"})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "/_sandbox/admin/api/accounts/settings") {
		t.Errorf("area setting sent to the faults: %d %s", resp.StatusCode, body)
	}
	if resp, body := s.do(t, http.MethodPut, "/_sandbox/admin/api/faults", adminToken, map[string]any{"errorRate": 0.7, "dropRate": 0.5}); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("rates over 1: %d %s", resp.StatusCode, body)
	}
	resp, body = s.do(t, http.MethodPut, "/_sandbox/admin/api/faults", adminToken, map[string]any{"errorRate": 1, "retryAfter": "3s"})
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"retryAfter":"3s"`) {
		t.Fatalf("put faults: %d %s", resp.StatusCode, body)
	}
	resp, _ = s.do(t, http.MethodPost, "/v2/application/start", token, map[string]any{})
	if resp.StatusCode < 429 {
		t.Errorf("API under a 100%% error rate: %d", resp.StatusCode)
	}
	s.do(t, http.MethodPut, "/_sandbox/admin/api/faults", adminToken, map[string]any{})
	if resp, _ := s.do(t, http.MethodPost, "/_sandbox/admin/faults", adminToken, url.Values{"errorRate": {"2"}}); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("faults form with a bad rate: %d", resp.StatusCode)
	}
}

func TestWallClockCannotAdvance(t *testing.T) {
	s := newServer(t, func(o *sandbox.Options) { o.Clock = kit.SystemClock{} })
	if resp, _ := s.do(t, http.MethodPost, "/_sandbox/admin/api/clock/advance", adminToken, map[string]string{"by": "2m"}); resp.StatusCode != http.StatusConflict {
		t.Errorf("advance the wall clock: %d, want 409", resp.StatusCode)
	}
}

// fakeArea stands in for areas B and C, which plug in when their
// branches merge.
type fakeArea struct {
	name  string
	calls atomic.Int32
	fail  atomic.Bool
}

func (f *fakeArea) Mount(mux *http.ServeMux) {
	mux.HandleFunc("GET /_sandbox/admin/"+f.name, func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, f.name) })
}
func (f *fakeArea) Close() error { return nil }

type fakePayments struct{ fakeArea }

func (f *fakePayments) Provision(_ context.Context, m kit.Merchant) (kit.PaymentCredentials, error) {
	f.calls.Add(1)
	if f.fail.Load() {
		return kit.PaymentCredentials{}, errors.New("down")
	}
	return kit.PaymentCredentials{OID: "oid-" + m.ApplicationID[:8], Token: "jwt"}, nil
}

type fakeTerminals struct{ fakeArea }

func (f *fakeTerminals) Provision(_ context.Context, m kit.Merchant) (kit.TerminalCredentials, error) {
	f.calls.Add(1)
	return kit.TerminalCredentials{APIKey: "key", Locations: []kit.TerminalLocation{{LocationID: "YZM-5B5-RAC", Name: m.Name}}}, nil
}

func TestBoardingProvisionsTheAreas(t *testing.T) {
	pay, term := &fakePayments{fakeArea{name: "payments"}}, &fakeTerminals{fakeArea{name: "terminals"}}
	pay.fail.Store(true)
	s := newServer(t, func(o *sandbox.Options) {
		o.Payments = func(kit.Env) (sandbox.PaymentsArea, error) { return pay, nil }
		o.Terminals = func(kit.Env) (sandbox.TerminalsArea, error) { return term, nil }
	})
	if resp, body := s.do(t, http.MethodGet, "/_sandbox/admin/payments", adminToken, nil); resp.StatusCode != http.StatusOK || body != "payments" {
		t.Errorf("area B not mounted: %d %s", resp.StatusCode, body)
	}
	id := s.accepted(t, "Corner Coffee")
	path := "/_sandbox/admin/api/merchants/" + id + "/credentials"
	if resp, body := s.do(t, http.MethodGet, path, adminToken, nil); resp.StatusCode != http.StatusConflict || !strings.Contains(body, "processing") {
		t.Errorf("credentials before boarding: %d %s", resp.StatusCode, body)
	}
	if resp, _ := s.do(t, http.MethodGet, "/_sandbox/admin/api/merchants/"+uuid.NewString()+"/credentials", adminToken, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown application: %d", resp.StatusCode)
	}
	s.Advance(time.Minute) // underwriting boards it
	if a, _ := s.Accounts().Application(id); a.Status != accounts.StatusBoarded {
		t.Fatalf("status %s, want boarded", a.Status)
	}
	if pay.calls.Load() != 1 || term.calls.Load() != 1 {
		t.Errorf("provision calls at boarding: payments %d, terminals %d", pay.calls.Load(), term.calls.Load())
	}
	// Area B failed at boarding: the credentials route provisions it then.
	pay.fail.Store(false)
	resp, body := s.do(t, http.MethodGet, path, adminToken, nil)
	var creds sandbox.Credentials
	if err := json.Unmarshal([]byte(body), &creds); err != nil || resp.StatusCode != http.StatusOK ||
		creds.Payments == nil || creds.Payments.OID != "oid-"+id[:8] || creds.Terminals == nil || creds.Terminals.Locations[0].Name != "Corner Coffee" {
		t.Fatalf("credentials: %d %s", resp.StatusCode, body)
	}
	s.do(t, http.MethodGet, path, adminToken, nil)
	if pay.calls.Load() != 2 || term.calls.Load() != 1 {
		t.Errorf("provision calls after two reads: payments %d, terminals %d; want 2 and 1", pay.calls.Load(), term.calls.Load())
	}
}

func TestCredentialsWithAreaAOnly(t *testing.T) {
	s := newServer(t, func(o *sandbox.Options) { o.WithoutPaymentsAndTerminals = true })
	id := s.accepted(t, "Corner Coffee")
	s.Advance(time.Minute)
	resp, body := s.do(t, http.MethodGet, "/_sandbox/admin/api/merchants/"+id+"/credentials", adminToken, nil)
	if resp.StatusCode != http.StatusOK || strings.TrimSpace(body) != `{"payments":null,"terminals":null}` {
		t.Errorf("credentials: %d %s", resp.StatusCode, body)
	}
}

func TestStateAndManualClockSurviveRestart(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.db")
	objects := t.TempDir()
	persistent := func(o *sandbox.Options) { o.StateFile, o.Accounts.ObjectDir = state, objects }
	first := newServer(t, persistent)
	id := first.accepted(t, "Corner Coffee")
	first.Advance(30 * time.Second)
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second := newServer(t, func(o *sandbox.Options) {
		persistent(o)
		o.Clock = kit.NewManualClock(t0) // started again at an earlier time
	})
	if got := second.clock.Now(); !got.Equal(t0.Add(30 * time.Second)) {
		t.Errorf("clock after restart = %v, want where it stood", got)
	}
	second.Advance(30 * time.Second) // the decision planned before the restart falls due
	if a, ok := second.Accounts().Application(id); !ok || a.Status != accounts.StatusBoarded {
		t.Errorf("after restart: %+v", a)
	}
}

func TestAccountsOnlyTakesAnyCode(t *testing.T) {
	opts := sandbox.AccountsOnly(accounts.Options{Tokens: []string{token}, Faults: accounts.Faults{ErrorRate: 0.5, URLLifetime: time.Second}})
	if !opts.Accounts.AnyPricingCode || opts.Faults.ErrorRate != 0.5 || opts.Accounts.Faults.URLLifetime != time.Second {
		t.Errorf("options = %+v", opts)
	}
}
