package cli_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payportal/portal/internal/auth"
	"github.com/payportal/portal/internal/testutil/cputime"
	"github.com/payportal/portal/internal/testutil/portalproc"
	"github.com/payportal/portal/internal/testutil/seed"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// Shape of BenchmarkStartUp.
const (
	startApplications = 100_000
	startReps         = 20
	startRounds       = 5
	// startSettle is how long the process is left alone, once its
	// background work has finished, before its resident memory is read.
	startSettle = 5 * time.Second
)

// BenchmarkStartUp measures how fast `portal serve` (the binary the image
// ships) starts on a database of 100,000 applications, and what it holds
// once idle. A first start runs whatever a new database or a new version
// does once (migrations are already applied; one-time tasks, the key ring's
// first look) and signs a rep in; the session is kept in the database. Then
// each of the rounds starts the process afresh and times, from exec, until
// /readyz answers 200 (polled every 2 ms); then the first dashboard request
// (GET / with the kept session) and a second one; then waits until no
// background job is queued or running, leaves the process alone for 5 s and
// reads its resident memory (VmRSS). Reported: medians and largest of each,
// and the load average. Run with -benchtime 1x. See BENCHMARKS.md.
func BenchmarkStartUp(b *testing.B) {
	bin := portalproc.Build(b)
	db, dbURL := testdb.NewWithURL(b)
	ctx := context.Background()
	if err := seed.Applications(ctx, db.Pool, startApplications, startReps); err != nil {
		b.Fatal(err)
	}
	if _, _, err := seed.Vacuum(ctx, db.Pool); err != nil {
		b.Fatal(err)
	}
	hash, err := auth.HashPassword(rushPassword)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `UPDATE users SET password_hash = $1 WHERE email = 'rep1@bench.example'`, hash); err != nil {
		b.Fatal(err)
	}
	vars := map[string]string{
		"PORTAL_DATABASE_URL":        dbURL,
		"PORTAL_ENCRYPTION_KEYS":     "k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
		"PORTAL_LISTEN_ADDR":         freeAddrTB(b),
		"PORTAL_SANDBOX_LISTEN_ADDR": freeAddrTB(b),
		"PORTAL_SANDBOX_DATA_DIR":    b.TempDir(),
		"PORTAL_STORAGE_DIR":         b.TempDir(),
		"PORTAL_LOG_LEVEL":           "info", // the start's line says how long each step took
		"PORTAL_DRAIN_PERIOD":        "",
	}
	base := "http://" + vars["PORTAL_LISTEN_ADDR"]
	// The first start: what runs once, and the rep's session.
	first := startPortal(b, bin, vars, base)
	cookie := signInRep(b, base)
	waitIdle(b, db.Pool)
	first.stop(b)

	load := cputime.LoadAverage()
	var ready, firstPage, secondPage []time.Duration
	var idle []float64
	for b.Loop() {
		for r := range startRounds {
			p := startPortal(b, bin, vars, base)
			ready = append(ready, p.ready)
			firstPage = append(firstPage, getDashboard(b, base, cookie))
			secondPage = append(secondPage, getDashboard(b, base, cookie))
			waitIdle(b, db.Pool)
			time.Sleep(startSettle)
			idle = append(idle, residentMiB(b, p.proc.Pid()))
			b.Logf("round %d: ready after %v; first dashboard %v, second %v; idle RSS %.1f MiB (%s); steps: %s",
				r+1, p.ready.Round(time.Millisecond), firstPage[r].Round(time.Microsecond), secondPage[r].Round(time.Microsecond), idle[r],
				heapMiB(b, base), startSteps(p.proc.Output()))
			p.stop(b)
		}
	}
	b.Logf("load average before: %s; after: %s", load, cputime.LoadAverage())
	b.ReportMetric(ms(median(ready)), "ready-ms-median")
	b.ReportMetric(ms(slices.Max(ready)), "ready-ms-max")
	b.ReportMetric(ms(median(firstPage)), "first-dashboard-ms-median")
	b.ReportMetric(ms(median(secondPage)), "second-dashboard-ms-median")
	slices.Sort(idle)
	b.ReportMetric(idle[len(idle)/2], "idle-RSS-MiB-median")
	b.ReportMetric(idle[len(idle)-1], "idle-RSS-MiB-max")
	b.ReportMetric(0, "ns/op")
}

// startedPortal is a portal process and how long it took to be ready.
type startedPortal struct {
	proc  *portalproc.Process
	ready time.Duration
}

// startPortal execs the portal and polls /readyz until it answers 200.
func startPortal(b *testing.B, bin string, vars map[string]string, base string) startedPortal {
	b.Helper()
	client := &http.Client{Timeout: time.Second}
	t0 := time.Now()
	p := portalproc.Start(b, bin, vars)
	for {
		if res, err := client.Get(base + "/readyz"); err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return startedPortal{proc: p, ready: time.Since(t0)}
			}
		}
		select {
		case <-p.Exited():
			b.Fatalf("the portal ended before it was ready:\n%s", p.Output())
		case <-time.After(2 * time.Millisecond):
		}
		if time.Since(t0) > 2*time.Minute {
			b.Fatalf("the portal was not ready within 2 minutes:\n%s", p.Output())
		}
	}
}

// stop ends the process with SIGTERM and waits for it.
func (p startedPortal) stop(b *testing.B) {
	b.Helper()
	p.proc.Terminate(b)
	select {
	case <-p.proc.Exited():
	case <-time.After(time.Minute):
		b.Fatalf("the portal did not stop:\n%s", p.proc.Output())
	}
}

// signInRep signs rep1 in and returns the session cookie.
func signInRep(b *testing.B, base string) string {
	b.Helper()
	c := newRushClient(b, base)
	form := url.Values{"email": {"rep1@bench.example"}, "password": {rushPassword}, "csrf_token": {c.csrf}, "tz": {"UTC"}}
	res, err := c.http.PostForm(base+"/login", form)
	if err != nil {
		b.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		b.Fatalf("sign-in: %d", res.StatusCode)
	}
	u, _ := url.Parse(base)
	for _, ck := range c.http.Jar.Cookies(u) {
		if ck.Name == "portal_session" {
			return ck.Name + "=" + ck.Value
		}
	}
	b.Fatal("no session cookie")
	return ""
}

// getDashboard times one GET / with the session cookie.
func getDashboard(b *testing.B, base, cookie string) time.Duration {
	b.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/", nil)
	req.Header.Set("Cookie", cookie)
	t0 := time.Now()
	res, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		b.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	took := time.Since(t0)
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "application-list") {
		b.Fatalf("dashboard: %d", res.StatusCode)
	}
	return took
}

// waitIdle waits until no background job is queued or running.
func waitIdle(b *testing.B, pool *pgxpool.Pool) {
	b.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var busy int
		if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM river_job WHERE state IN ('available', 'running')`).Scan(&busy); err != nil {
			b.Fatal(err)
		}
		if busy == 0 {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d background jobs still queued or running after 2 minutes", busy)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// heapMiB says, from the portal's /metrics, how much of its memory is Go's heap in
// use, heap held but unused (not yet returned to the system) and stacks.
func heapMiB(b *testing.B, base string) string {
	b.Helper()
	res, err := http.Get(base + "/metrics")
	if err != nil {
		b.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	v := map[string]float64{}
	for line := range strings.Lines(string(body)) {
		name, value, ok := strings.Cut(strings.TrimSpace(line), " ")
		if ok && strings.HasPrefix(name, "go_memstats_") {
			f, _ := strconv.ParseFloat(value, 64)
			v[strings.TrimPrefix(name, "go_memstats_")] = f / (1 << 20)
		}
	}
	return fmt.Sprintf("Go heap in use %.1f MiB, held unused %.1f, stacks %.1f",
		v["heap_inuse_bytes"], v["heap_idle_bytes"]-v["heap_released_bytes"], v["stack_inuse_bytes"])
}

// startSteps is what the portal's "portal started" line says each step of the
// start took (open, migrate, sandbox, build, prepare, jobs).
func startSteps(output string) string {
	for line := range strings.Lines(output) {
		if strings.Contains(line, `msg="portal started"`) {
			if i := strings.Index(line, " open="); i >= 0 {
				return strings.TrimSpace(line[i:])
			}
		}
	}
	return "(not logged)"
}

var vmRSS = regexp.MustCompile(`VmRSS:\s+(\d+) kB`)

// residentMiB is the process's resident memory now, in MiB.
func residentMiB(b *testing.B, pid int) float64 {
	b.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	m := vmRSS.FindSubmatch(status)
	if m == nil {
		b.Fatal("no VmRSS")
	}
	kb, _ := strconv.Atoi(string(m[1]))
	return float64(kb) / 1024
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
