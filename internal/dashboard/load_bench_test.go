package dashboard_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
	"github.com/payportal/portal/internal/testutil/cputime"
)

// Load settings of BenchmarkDashboardLoad.
const (
	loadClients   = 64
	loadAdmins    = 16 // the other clients are reps
	loadRounds    = 7  // the first is the cold round, reported apart
	loadDashboard = 6 * time.Second
	loadHealthz   = 2 * time.Second
)

// BenchmarkDashboardLoad signs in 64 people (16 admins, 48 reps) on a portal holding
// 100,000 applications and has each of them load the dashboard over HTTP as fast as it
// answers, in a mix of what people do there: the first page, the next page, a search, a
// status filter, another order (as the htmx fragment), an owner filter (admins). Each round
// runs that load and, beside it, the same 64 clients on /healthz (the machine's reference:
// no session, no database), in alternating order. Reported: the medians over rounds of
// requests per second, the answer time's p50 and p99, the CPU of this process (the portal
// and the load generator) and of PostgreSQL per request, and the load average. Run with
// -benchtime 1x; -cpuprofile profiles the whole run, and the load generator's goroutines
// are labelled side=client so that `go tool pprof -tagignore side=client` shows the portal
// alone. See BENCHMARKS.md.
func BenchmarkDashboardLoad(b *testing.B) {
	// No job workers: the seeded applications "submitting" would otherwise be pushed,
	// beside the measurement, by the reconciler.
	env := apptest.New(b, apptest.WithoutWorkers())
	seedDashboard(b, env)
	ctx := context.Background()
	// The seeded reps get a password, so that they can sign in.
	proto, password := env.CreateUser(b, "proto@bench.example", models.RoleSalesRep)
	if _, err := env.DB.Pool.Exec(ctx, `UPDATE users SET password_hash = (SELECT password_hash FROM users WHERE id = $1)
		WHERE email LIKE 'rep%@bench.example'`, proto.ID); err != nil {
		b.Fatal(err)
	}
	var repIDs []string
	rows, err := env.DB.Pool.Query(ctx, `SELECT id::text FROM users WHERE email LIKE 'rep%@bench.example' ORDER BY email`)
	if err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			b.Fatal(err)
		}
		repIDs = append(repIDs, id)
	}
	rows.Close()

	clients := make([]*loadClient, loadClients)
	for i := range clients {
		c := env.Client(b)
		if i < loadAdmins {
			email := fmt.Sprintf("admin%d@bench.example", i)
			_, pw := env.CreateUser(b, email, models.RoleAdmin)
			c.Login(email, pw)
		} else {
			c.Login(fmt.Sprintf("rep%d@bench.example", 1+(i-loadAdmins)%len(repIDs)), password)
		}
		first := c.Get("/")
		if first.Status != http.StatusOK {
			b.Fatalf("dashboard: %d", first.Status)
		}
		clients[i] = &loadClient{cookie: "portal_session=" + c.Cookie("portal_session"), paths: loadPaths(b, first.Body, i < loadAdmins, repIDs[i%len(repIDs)])}
	}
	transport := &http.Transport{MaxIdleConnsPerHost: loadClients, MaxConnsPerHost: loadClients, DisableCompression: true}
	defer transport.CloseIdleConnections()
	hc := &http.Client{Transport: transport, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	pg := cputime.FindPostgres(context.Background(), env.DB.Pool)
	load1 := cputime.LoadAverage()
	var results []loadRound
	for b.Loop() {
		for r := range loadRounds {
			round := loadRound{}
			// The three loads in every round, in an order rotating with the round.
			for k := range 3 {
				switch (r + k) % 3 {
				case 0:
					round.first = runLoad(b, hc, env.URL, clients, loadDashboard, firstPageOnly, pg)
				case 1:
					round.mix = runLoad(b, hc, env.URL, clients, loadDashboard, fullMix, pg)
				case 2:
					round.healthz = runLoad(b, hc, env.URL, clients, loadHealthz, healthzOnly, pg)
				}
			}
			results = append(results, round)
			b.Logf("round %d: first page %s; mix %s; /healthz %.0f req/s", r+1, round.first, round.mix, round.healthz.rps)
		}
	}
	load2 := cputime.LoadAverage()
	b.Logf("load average before: %s; after: %s", load1, load2)
	cold, warm := results[0], results[1:]
	b.ReportMetric(cold.first.rps, "cold-req/s")
	b.ReportMetric(ms(cold.first.p99), "cold-p99-ms")
	for _, m := range []struct {
		name string
		get  func(loadRound) loadResult
	}{{"first-", func(r loadRound) loadResult { return r.first }}, {"mix-", func(r loadRound) loadResult { return r.mix }}} {
		b.ReportMetric(medianOf(warm, func(r loadRound) float64 { return m.get(r).rps }), m.name+"req/s")
		b.ReportMetric(medianOf(warm, func(r loadRound) float64 { return ms(m.get(r).p50) }), m.name+"p50-ms")
		b.ReportMetric(medianOf(warm, func(r loadRound) float64 { return ms(m.get(r).p99) }), m.name+"p99-ms")
		b.ReportMetric(medianOf(warm, func(r loadRound) float64 { return m.get(r).cpuPerReq }), m.name+"cpu-ms/req")
		b.ReportMetric(medianOf(warm, func(r loadRound) float64 { return m.get(r).pgCPUPerReq }), m.name+"pg-cpu-ms/req")
	}
	b.ReportMetric(medianOf(warm, func(r loadRound) float64 { return r.healthz.rps }), "healthz-req/s")
	b.ReportMetric(0, "ns/op")
}

// loadClient is one signed-in person: their session cookie and the requests they cycle through.
type loadClient struct {
	cookie string
	paths  []loadRequest
}

type loadRequest struct {
	path     string
	fragment bool
}

var nextLink = regexp.MustCompile(`href="(/\?[^"]*after=[^"]+)" rel="next"`)

// loadPaths is one person's mix of dashboard requests; the next page's link comes from their
// first page.
func loadPaths(b *testing.B, firstPage string, admin bool, repID string) []loadRequest {
	b.Helper()
	m := nextLink.FindStringSubmatch(firstPage)
	if m == nil {
		b.Fatal("no next page link on the dashboard")
	}
	next := strings.ReplaceAll(m[1], "&amp;", "&")
	paths := []loadRequest{
		{path: "/"},
		{path: next},
		{path: "/?" + url.Values{"q": {"fern"}}.Encode()},
		{path: "/?status=needs_attention"},
		{path: "/?sort=name", fragment: true},
		{path: "/"},
	}
	if admin {
		paths = append(paths, loadRequest{path: "/?owner=" + repID})
	} else {
		paths = append(paths, loadRequest{path: "/?" + url.Values{"q": {"salon"}}.Encode()})
	}
	return paths
}

// loadResult is one phase of a round.
type loadResult struct {
	rps, cpuPerReq, pgCPUPerReq float64
	p50, p99                    time.Duration
}

type loadRound struct{ first, mix, healthz loadResult }

// What a load phase requests.
const (
	firstPageOnly = iota // GET /: each person's dashboard as it opens
	fullMix              // every request of the person's mix in turn
	healthzOnly          // GET /healthz: no session, no database
)

func (r loadResult) String() string {
	return fmt.Sprintf("%.0f req/s, p50 %.1f ms, p99 %.1f ms, CPU %.2f ms/req (PostgreSQL %.2f)",
		r.rps, ms(r.p50), ms(r.p99), r.cpuPerReq, r.pgCPUPerReq)
}

// runLoad has every client send requests back to back for d and measures them.
func runLoad(b *testing.B, hc *http.Client, base string, clients []*loadClient, d time.Duration, what int, pg cputime.Postgres) loadResult {
	b.Helper()
	var (
		count   atomic.Int64
		failed  atomic.Value
		mu      sync.Mutex
		samples []time.Duration
		wg      sync.WaitGroup
	)
	cpu0, pg0 := cputime.Process(), pg.Used()
	start := time.Now()
	deadline := start.Add(d)
	for i, c := range clients {
		wg.Add(1)
		go pprof.Do(context.Background(), pprof.Labels("side", "client"), func(ctx context.Context) {
			defer wg.Done()
			var mine []time.Duration
			for n := i; time.Now().Before(deadline); n++ {
				req := c.paths[0]
				switch what {
				case fullMix:
					req = c.paths[n%len(c.paths)]
				case healthzOnly:
					req = loadRequest{path: "/healthz"}
				}
				t0 := time.Now()
				if err := doLoadRequest(ctx, hc, base, c.cookie, req); err != nil {
					failed.Store(err)
					return
				}
				mine = append(mine, time.Since(t0))
			}
			count.Add(int64(len(mine)))
			mu.Lock()
			samples = append(samples, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	n := float64(count.Load())
	slices.Sort(samples)
	res := loadResult{
		rps:       n / elapsed.Seconds(),
		cpuPerReq: (cputime.Process() - cpu0).Seconds() * 1000 / n,
		p50:       samples[len(samples)/2],
		p99:       samples[(len(samples)*99+99)/100-1],
	}
	res.pgCPUPerReq = (pg.Used() - pg0).Seconds() * 1000 / n
	return res
}

func doLoadRequest(ctx context.Context, hc *http.Client, base, cookie string, r loadRequest) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+r.path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Cookie", cookie)
	if r.fragment {
		req.Header.Set("HX-Request", "true")
		req.Header.Set("HX-Target", "application-list")
	}
	res, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if _, err := io.Copy(io.Discard, res.Body); err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %d", r.path, res.StatusCode)
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func medianOf[T any](xs []T, f func(T) float64) float64 {
	v := make([]float64, len(xs))
	for i, x := range xs {
		v[i] = f(x)
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}
