package terminals_test

import (
	"context"
	crand "crypto/rand"
	"encoding/base64"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/payments"
	"github.com/payportal/portal/internal/sandbox/kit"
	sandbox "github.com/payportal/portal/internal/sandbox/terminals"
	"github.com/payportal/portal/internal/terminals"
	"github.com/payportal/portal/internal/testutil/testdb"
	upstream "github.com/payportal/portal/internal/upstream/terminals"
)

// BenchmarkFiveHundredLaunchesInFlight launches 500 sales at once, one per
// device (167 locations of three devices), against the sandbox's terminal
// cloud behind a real socket on the wall clock, and waits until the one
// follower of the process has recorded every result. It reports, from the
// sandbox's ready times and the portal's records, the lag between a result
// being ready and being recorded (p50, p99, max), the shortest gap between
// two reads of one transaction, the reads per transaction, the peak of
// goroutines and the load average. Two cardholders: "fixed" takes exactly
// 3 s (the worst case for the lag: every result is ready just after a
// read), "spread" takes 2 to 4 s, evenly spread, as people do.
func BenchmarkFiveHundredLaunchesInFlight(b *testing.B) {
	for _, spread := range []bool{false, true} {
		name := "fixed-3s"
		if spread {
			name = "spread-2-4s"
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				runFiveHundred(b, spread)
			}
		})
	}
}

// benchLaunches is how many launches are in flight at once.
const benchLaunches = 500

func runFiveHundred(b *testing.B, spread bool) {
	b.StopTimer()
	e := newBenchEnv(b)
	load0 := loadAverage()
	b.StartTimer()
	start := time.Now()
	var peak atomic.Int64
	stopWatch := watchGoroutines(&peak)
	ids := make([]uuid.UUID, benchLaunches)
	var wg sync.WaitGroup
	work := make(chan int)
	for range 50 {
		wg.Go(func() {
			for i := range work {
				dev := e.devices[i]
				if spread {
					e.setDelay(b, 2*time.Second+time.Duration(rand.Int64N(int64(2*time.Second))))
				}
				l, err := e.svc.Launch(context.Background(), e.user, e.merchant.ID, terminals.LaunchRequest{
					FormToken: uuid.NewString(), Kind: "sale", Amount: "12.00", Invoice: fmt.Sprintf("B-%d", i),
					LocationID: dev[0], Device: dev[1]})
				if err != nil || l.State != terminals.StateWaiting {
					b.Errorf("launch %d: %v", i, err)
					continue
				}
				ids[i] = l.ID
			}
		})
	}
	for i := range benchLaunches {
		work <- i
	}
	close(work)
	wg.Wait()
	launched := time.Since(start)
	fast, _ := e.svc.Following()
	for {
		var open int
		if err := e.db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM terminal_launches WHERE state IN ('sending', 'waiting')`).Scan(&open); err != nil {
			b.Fatal(err)
		}
		if open == 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	b.StopTimer()
	stopWatch()
	e.report(b, ids, launched, fast, int(peak.Load()), load0)
}

// benchEnv is the room with many devices, on the wall clock.
type benchEnv struct {
	*env
	devices [][2]string // location, device
	reads   *readLog
	delayMu sync.Mutex
}

func newBenchEnv(b *testing.B) *benchEnv {
	b.Helper()
	e := &benchEnv{env: &env{db: testdb.New(b)}, reads: &readLog{at: map[string][]time.Time{}}}
	store, err := kit.OpenStore("")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = store.Close() })
	if e.faults, err = kit.NewInjector(kit.Faults{}, 7); err != nil {
		b.Fatal(err)
	}
	kenv := kit.Env{Clock: kit.SystemClock{}, Faults: e.faults, Store: store, Log: slog.New(slog.DiscardHandler), Admin: kit.AdminGuard("admin")}
	if e.area, err = sandbox.New(kenv, sandbox.Options{CardholderDelay: 3 * time.Second}); err != nil {
		b.Fatal(err)
	}
	mux := http.NewServeMux()
	e.area.Mount(mux)
	e.srv = httptest.NewServer(mux)
	b.Cleanup(e.srv.Close)
	app := uuid.NewString()
	creds, err := e.area.Provision(context.Background(), kit.Merchant{ApplicationID: app, Name: "Stadium"})
	if err != nil {
		b.Fatal(err)
	}
	e.merchant = &terminals.Merchant{ID: uuid.New(), Name: "Stadium"}
	e.merchant.Locations = append(e.merchant.Locations, terminals.Location{ID: creds.Locations[0].LocationID, Name: "Gate 0", TestMode: true, APIKey: creds.APIKey})
	for i := 1; len(e.merchant.Locations)*3 < benchLaunches; i++ {
		var loc struct {
			LocationID string `json:"locationId"`
		}
		e.adminJSON(b, http.MethodPost, "/locations", fmt.Sprintf(`{"name": "Gate %d", "applicationId": %q}`, i, app), &loc)
		e.merchant.Locations = append(e.merchant.Locations, terminals.Location{ID: loc.LocationID, Name: fmt.Sprintf("Gate %d", i), TestMode: true, APIKey: creds.APIKey})
	}
	e.merchants = &fakeMerchants{merchant: e.merchant, access: map[uuid.UUID]terminals.Access{}}
	e.user = e.addUser(b, "ann@example.com", "Ann Cashier")
	e.merchants.grant(e.user, everything)
	key := make([]byte, 32)
	_, _ = crand.Read(key)
	ring, err := fieldcrypt.ParseKeyRing("t", "t:"+base64.StdEncoding.EncodeToString(key))
	if err != nil {
		b.Fatal(err)
	}
	e.ledger = payments.NewLedger(e.db.Pool, ring, time.Now)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	hc := &http.Client{Transport: &countingTransport{next: tr, log: e.reads}}
	if e.cloud, err = upstream.New(upstream.Config{BaseURL: e.srv.URL, HTTPClient: hc}); err != nil {
		b.Fatal(err)
	}
	if e.recheck, err = upstream.New(upstream.Config{BaseURL: e.srv.URL, HTTPClient: hc, Poll: terminals.RecheckPolicy()}); err != nil {
		b.Fatal(err)
	}
	e.svc, err = terminals.NewService(terminals.Deps{Pool: e.db.Pool, Merchants: e.merchants, Ledger: e.ledger,
		Cloud: e.cloud, Recheck: e.recheck, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	e.svc.Start(context.Background())
	b.Cleanup(func() { _ = e.svc.Stop(context.Background()) })
	for _, loc := range e.merchant.Locations {
		if err := e.svc.Refresh(context.Background(), e.user, e.merchant.ID, loc.ID); err != nil {
			b.Fatal(err)
		}
		for _, d := range []string{"EMULATOR", "COUNTER-S300", "TABLE-D210"} {
			e.devices = append(e.devices, [2]string{loc.ID, d})
		}
	}
	e.devices = e.devices[:benchLaunches]
	return e
}

// setDelay sets the sandbox cardholder's time for the next launches.
func (e *benchEnv) setDelay(b *testing.B, d time.Duration) {
	e.delayMu.Lock()
	defer e.delayMu.Unlock()
	if err := e.area.SetSettings(sandbox.Settings{CardholderDelay: d, HostDelay: time.Second, TerminalTimeout: time.Minute}); err != nil {
		b.Error(err)
	}
}

// report checks every result and reports the figures.
func (e *benchEnv) report(b *testing.B, ids []uuid.UUID, launched time.Duration, following, goroutines int, load0 string) {
	var ready []struct {
		UniqueTransID string    `json:"uniqueTransId"`
		ReadyAt       time.Time `json:"readyAt"`
	}
	e.adminJSON(b, http.MethodGet, "/transactions?limit=500", "", &ready)
	readyAt := map[string]time.Time{}
	for _, r := range ready {
		readyAt[r.UniqueTransID] = r.ReadyAt
	}
	var lags []time.Duration
	for _, id := range ids {
		l, err := e.svc.Store().Launch(context.Background(), nil, id)
		if err != nil {
			b.Fatal(err)
		}
		if l.State != terminals.StateApproved || l.FinishedAt == nil {
			b.Fatalf("launch %s ended %s", id, l.State)
		}
		at, ok := readyAt[l.CloudID()]
		if !ok {
			b.Fatalf("the sandbox does not list %s", l.CloudID())
		}
		lags = append(lags, l.FinishedAt.Sub(at))
	}
	slices.Sort(lags)
	gap, most := e.reads.shortestGap()
	b.ReportMetric(ms(lags[len(lags)/2]), "lag-p50-ms")
	b.ReportMetric(ms(lags[len(lags)*99/100]), "lag-p99-ms")
	b.ReportMetric(ms(lags[len(lags)-1]), "lag-max-ms")
	b.ReportMetric(ms(gap), "min-read-gap-ms")
	b.ReportMetric(float64(most), "max-reads/tx")
	b.ReportMetric(float64(goroutines), "goroutines-peak")
	b.ReportMetric(float64(following), "followed-at-once")
	b.ReportMetric(ms(launched), "launch-all-ms")
	b.Logf("load average before %s, after %s; %d cores", load0, loadAverage(), runtime.NumCPU())
	if gap < time.Second {
		b.Errorf("a transaction was read twice within %s", gap)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// readLog records the result reads per transaction.
type readLog struct {
	mu sync.Mutex
	at map[string][]time.Time
}

func (r *readLog) add(id string, t time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.at[id] = append(r.at[id], t)
}

// shortestGap returns the shortest time between two reads of one
// transaction, and the most reads of one.
func (r *readLog) shortestGap() (time.Duration, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	gap, most := time.Hour, 0
	for _, ts := range r.at {
		most = max(most, len(ts))
		for i := 1; i < len(ts); i++ {
			gap = min(gap, ts[i].Sub(ts[i-1]))
		}
	}
	return gap, most
}

// countingTransport notes when each result read has been written to the
// connection: when it left the process.
type countingTransport struct {
	next http.RoundTripper
	log  *readLog
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if id, ok := strings.CutPrefix(r.URL.Path, "/transactionresult/"); ok {
		r = r.WithContext(httptrace.WithClientTrace(r.Context(), &httptrace.ClientTrace{
			WroteRequest: func(i httptrace.WroteRequestInfo) {
				if i.Err == nil {
					c.log.add(id, time.Now())
				}
			},
		}))
	}
	return c.next.RoundTrip(r)
}

// watchGoroutines keeps the peak number of goroutines until stopped.
func watchGoroutines(peak *atomic.Int64) func() {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			if n := int64(runtime.NumGoroutine()); n > peak.Load() {
				peak.Store(n)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done) }
}

// loadAverage is the first three fields of /proc/loadavg.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:3], " ")
}
