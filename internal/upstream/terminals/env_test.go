package terminals_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/payportal/portal/internal/sandbox/kit"
	sandbox "github.com/payportal/portal/internal/sandbox/terminals"
	"github.com/payportal/portal/internal/upstream/terminals"
)

const adminToken = "admin-test-token"

// t0 is the start of every test's clock.
var t0 = time.Date(2026, 3, 2, 14, 0, 0, 0, time.UTC)

// env is the sandbox's terminal cloud on a real socket and a client of it,
// both on one manual clock.
type env struct {
	clock  *terminals.ManualClock
	area   *sandbox.Area
	srv    *httptest.Server
	faults *kit.Injector
	client *terminals.Client
	loc    terminals.Location
	creds  kit.TerminalCredentials
	logs   *syncBuffer

	reads, maxReads atomic.Int64 // result reads in flight, and the most seen at once
	// slowReads is a number of result reads to answer 20 ms late, so that
	// reads overlap and a bound on reads in flight shows.
	slowReads atomic.Int64
}

func newEnv(t *testing.T, mutate func(*terminals.Config)) *env {
	t.Helper()
	store, err := kit.OpenStore("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	faults, err := kit.NewInjector(kit.Faults{}, 11)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{clock: terminals.NewManualClock(t0), faults: faults, logs: &syncBuffer{}}
	e.area, err = sandbox.New(kit.Env{Clock: e.clock, Faults: faults, Store: store, Log: slog.New(slog.DiscardHandler), Admin: adminToken}, sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	e.area.Mount(mux)
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/transactionresult/") {
			n := e.reads.Add(1)
			defer e.reads.Add(-1)
			for m := e.maxReads.Load(); n > m && !e.maxReads.CompareAndSwap(m, n); m = e.maxReads.Load() {
			}
			if e.slowReads.Add(-1) >= 0 {
				time.Sleep(20 * time.Millisecond) // network latency, not a deadline
			}
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(e.srv.Close)
	e.creds, err = e.area.Provision(context.Background(), kit.Merchant{ApplicationID: "app-1", Name: "Corner Cafe"})
	if err != nil {
		t.Fatal(err)
	}
	e.loc = terminals.Location{ID: e.creds.Locations[0].LocationID, APIKey: e.creds.APIKey, TestMode: true}
	cfg := terminals.Config{BaseURL: e.srv.URL, Clock: e.clock, Logger: slog.New(slog.NewTextHandler(e.logs, nil))}
	if mutate != nil {
		mutate(&cfg)
	}
	if e.client, err = terminals.New(cfg); err != nil {
		t.Fatal(err)
	}
	return e
}

// requests returns how many cloud requests the sandbox has had.
func (e *env) requests() int { return e.faults.Requests("terminals") }

// drive advances the clock by step each time the code under test waits on
// it, until done is closed.
func (e *env) drive(done <-chan struct{}, step time.Duration) {
	for {
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			select {
			case <-done:
				cancel()
			case <-ctx.Done():
			}
		}()
		err := e.clock.WaitForTimers(ctx, 1)
		cancel()
		if err != nil {
			return
		}
		e.clock.Advance(step)
	}
}

// drivePoller advances the clock by step each time p waits on it with no
// read in flight, until done is closed, so that simulated time never
// passes during a read and the results' lag measures the schedule alone.
func (e *env) drivePoller(p *terminals.Poller, done <-chan struct{}, step time.Duration) {
	for {
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			select {
			case <-done:
				cancel()
			case <-ctx.Done():
			}
		}()
		err := e.clock.WaitForTimers(ctx, 1)
		cancel()
		if err != nil {
			return
		}
		for p.InFlight() > 0 {
			runtime.Gosched()
		}
		if e.clock.Timers() > 0 {
			e.clock.Advance(step)
		}
	}
}

// launch launches tx and fails the test on an error.
func (e *env) launch(t *testing.T, loc terminals.Location, device string, tx terminals.Transaction) terminals.Launched {
	t.Helper()
	l, err := e.client.Launch(context.Background(), loc, device, tx)
	if err != nil {
		t.Fatalf("launch %s on %s: %v", tx.Type, device, err)
	}
	return l
}

// await follows l to its end, moving the clock as the polling waits.
func (e *env) await(loc terminals.Location, l terminals.Launched) (*terminals.Result, error) {
	done := make(chan struct{})
	var r *terminals.Result
	var err error
	go func() {
		defer close(done)
		r, err = e.client.AwaitResult(context.Background(), terminals.Watch{Location: loc, UniqueTransID: l.UniqueTransID, LaunchedAt: l.At})
	}()
	e.drive(done, time.Second)
	return r, err
}

// run launches tx and awaits its result, failing the test on an error.
func (e *env) run(t *testing.T, device string, tx terminals.Transaction) *terminals.Result {
	t.Helper()
	r, err := e.await(e.loc, e.launch(t, e.loc, device, tx))
	if err != nil {
		t.Fatalf("result of %s on %s: %v", tx.Type, device, err)
	}
	return r
}

// admin sends an admin JSON request and decodes the answer into out.
func (e *env) admin(t *testing.T, method, path string, body, out any) {
	t.Helper()
	var r io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		r = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(method, e.srv.URL+"/_sandbox/admin/api/terminals"+path, r)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		t.Fatalf("admin %s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatal(err)
		}
	}
}

// sandboxTx is the admin's view of a transaction.
type sandboxTx struct {
	ID       string    `json:"uniqueTransId"`
	ReadyAt  time.Time `json:"readyAt"`
	Approved bool      `json:"approved"`
	Charge   *struct {
		Total    string `json:"total"`
		Tip      string `json:"tip"`
		VoidedBy string `json:"voidedBy"`
	} `json:"charge"`
}

func (e *env) transaction(t *testing.T, id string) sandboxTx {
	t.Helper()
	var v sandboxTx
	e.admin(t, http.MethodGet, "/transactions/"+id, nil, &v)
	return v
}

// setDevice changes a device of the env's location through the admin.
func (e *env) setDevice(t *testing.T, device string, change map[string]any) {
	t.Helper()
	e.admin(t, http.MethodPatch, "/locations/"+e.loc.ID+"/devices/"+device, change, nil)
}

// newLocation creates a location through the admin and returns it.
func (e *env) newLocation(t *testing.T, req map[string]any) terminals.Location {
	t.Helper()
	var v struct {
		LocationID string `json:"locationId"`
		APIKey     string `json:"apiKey"`
		Production bool   `json:"production"`
	}
	e.admin(t, http.MethodPost, "/locations", req, &v)
	return terminals.Location{ID: v.LocationID, APIKey: v.APIKey, TestMode: !v.Production}
}

// amount parses a test amount.
func amount(t *testing.T, s string) terminals.Amount {
	t.Helper()
	a, err := terminals.ParseAmount(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// syncBuffer is a bytes.Buffer safe for the logger's concurrent writes.
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
