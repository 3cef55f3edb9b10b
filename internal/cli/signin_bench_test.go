package cli_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payportal/portal/internal/auth"
	"github.com/payportal/portal/internal/testutil/cputime"
	"github.com/payportal/portal/internal/testutil/portalproc"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// Shape of BenchmarkSignInRush: a Monday morning's sign-ins at once.
const (
	rushPeople = 64
	rushAdmins = 8 // admins answer the password step with the two-step page
	rushRounds = 5
)

// BenchmarkSignInRush starts the real portal binary (static, as the image
// ships it) afresh for each round and has 64 people sign in at the same
// moment with their right passwords, from one address (an office behind one
// router) and from 64 addresses (X-Forwarded-For from a trusted proxy), with
// the password-hash bound at its default (the CPU count). Each person loads
// the sign-in page first (its session and CSRF token); then all post at
// once. An answer counts as signed in when it redirects onwards: to the
// dashboard for reps, to the two-step page for admins. Reported per spread:
// the answers' p50, p99 and largest time, the answers other than a sign-in
// (503 and 429 among them; the goal is none) and the process's peak resident
// memory (VmHWM). See BENCHMARKS.md.
func BenchmarkSignInRush(b *testing.B) {
	bin := portalproc.Build(b)
	hash, err := auth.HashPassword(rushPassword)
	if err != nil {
		b.Fatal(err)
	}
	load := cputime.LoadAverage()
	for _, spread := range []string{"one-address", "64-addresses"} {
		b.Run(spread, func(b *testing.B) {
			var (
				peaks   []float64
				times   []time.Duration
				refused int
			)
			for b.Loop() {
				for r := range rushRounds {
					round := signInRushRound(b, bin, hash, spread == "64-addresses")
					b.Logf("round %d: peak RSS %.0f MiB, p99 %v, %d refused", r+1, round.peakMiB, percentile(round.times, 99), round.refused)
					peaks = append(peaks, round.peakMiB)
					times = append(times, round.times...)
					refused += round.refused
				}
			}
			slices.Sort(peaks)
			b.ReportMetric(peaks[len(peaks)/2], "peak-MiB-median")
			b.ReportMetric(peaks[len(peaks)-1], "peak-MiB-max")
			b.ReportMetric(ms(percentile(times, 50)), "answer-ms-p50")
			b.ReportMetric(ms(percentile(times, 99)), "answer-ms-p99")
			b.ReportMetric(ms(percentile(times, 100)), "answer-ms-max")
			b.ReportMetric(float64(refused), "not-signed-in")
			b.ReportMetric(0, "ns/op")
		})
	}
	b.Logf("load average before: %s; after: %s", load, cputime.LoadAverage())
}

const rushPassword = "correct-horse-battery-staple"

var csrfField = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// rushRound is what one round saw.
type rushRound struct {
	peakMiB float64
	times   []time.Duration
	refused int
}

// signInRushRound starts a fresh portal on a fresh database holding the
// people who sign in, and runs the rush once.
func signInRushRound(b *testing.B, bin, hash string, manyAddresses bool) rushRound {
	b.Helper()
	db, dbURL := testdb.NewWithURL(b)
	emails := make([]string, rushPeople)
	for i := range emails {
		role := "sales_rep"
		if i < rushAdmins {
			role = "admin"
		}
		emails[i] = fmt.Sprintf("person%d@rush.example", i)
		if _, err := db.Pool.Exec(context.Background(), `INSERT INTO users (id, email, name, role, password_hash)
			VALUES (gen_random_uuid(), $1, $2, $3, $4)`, emails[i], "Person "+strconv.Itoa(i), role, hash); err != nil {
			b.Fatal(err)
		}
	}
	db.Close()
	addr := freeAddrTB(b)
	p := portalproc.Start(b, bin, map[string]string{
		"PORTAL_DATABASE_URL":        dbURL,
		"PORTAL_ENCRYPTION_KEYS":     "k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
		"PORTAL_LISTEN_ADDR":         addr,
		"PORTAL_SANDBOX_LISTEN_ADDR": freeAddrTB(b),
		"PORTAL_SANDBOX_DATA_DIR":    b.TempDir(),
		"PORTAL_STORAGE_DIR":         b.TempDir(),
		"PORTAL_LOG_LEVEL":           "error",
		"PORTAL_TRUSTED_PROXIES":     "127.0.0.1",
	})
	defer p.Kill(b)
	base := "http://" + addr
	waitProcessReady(b, base)
	clients := make([]*rushClient, rushPeople)
	for i := range clients {
		clients[i] = newRushClient(b, base)
	}
	start := make(chan struct{})
	round := rushRound{times: make([]time.Duration, rushPeople)}
	var (
		wg sync.WaitGroup
		mu sync.Mutex
	)
	for i, c := range clients {
		wg.Go(func() {
			form := url.Values{"email": {emails[i]}, "password": {rushPassword}, "csrf_token": {c.csrf}, "tz": {"America/New_York"}}
			req, _ := http.NewRequest(http.MethodPost, base+"/login", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if manyAddresses {
				req.Header.Set("X-Forwarded-For", fmt.Sprintf("198.51.100.%d", i+1))
			}
			<-start
			t0 := time.Now()
			res, err := c.http.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			round.times[i] = time.Since(t0)
			if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") == "/login" {
				mu.Lock()
				round.refused++
				mu.Unlock()
				b.Logf("%s: answered %d (Retry-After %q)", emails[i], res.StatusCode, res.Header.Get("Retry-After"))
			}
		})
	}
	close(start)
	wg.Wait()
	round.peakMiB = peakRSS(b, p.Pid())
	return round
}

// rushClient is one person's browser: cookies and the sign-in page's token.
type rushClient struct {
	http *http.Client
	csrf string
}

func newRushClient(b *testing.B, base string) *rushClient {
	b.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Get(base + "/login")
	if err != nil {
		b.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := csrfField.FindSubmatch(page)
	if m == nil {
		b.Fatal("no CSRF token on the sign-in page")
	}
	return &rushClient{http: c, csrf: string(m[1])}
}

// waitProcessReady waits until /readyz answers 200.
func waitProcessReady(b *testing.B, base string) {
	b.Helper()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if res, err := http.Get(base + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			b.Fatal("portal did not become ready")
		}
	}
}

var vmHWM = regexp.MustCompile(`VmHWM:\s+(\d+) kB`)

// peakRSS is the process's peak resident memory so far, in MiB.
func peakRSS(b *testing.B, pid int) float64 {
	b.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	m := vmHWM.FindSubmatch(status)
	if m == nil {
		b.Fatal("no VmHWM")
	}
	kb, _ := strconv.Atoi(string(m[1]))
	return float64(kb) / 1024
}

// percentile is the p-th percentile of ts (sorted in place); 100 is the largest.
func percentile(ts []time.Duration, p int) time.Duration {
	slices.Sort(ts)
	return ts[(len(ts)*p+99)/100-1]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
