package cli_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payportal/portal/internal/testutil/testdb"
)

// BenchmarkSignInBurst starts the real portal binary (built without -race)
// and sends 64 simultaneous failed sign-ins for an unknown e-mail, from one
// address and from 64 addresses, with the password-hash bound at its
// default (the CPU count) and, side by side in paired rounds, effectively
// off (1024). It reports the process's peak resident memory and the answer
// times. See BENCHMARKS.md.
func BenchmarkSignInBurst(b *testing.B) {
	bin := buildPortal(b)
	const rounds, burst = 5, 64
	bounds := []string{"default", "1024"}
	for _, spread := range []string{"one-address", "64-addresses"} {
		b.Run(spread, func(b *testing.B) {
			peaks := map[string][]float64{}
			times := map[string][]time.Duration{}
			// Paired rounds: both bounds in every round, in alternating order,
			// so a change in the machine's load touches both alike.
			for r := range rounds {
				order := bounds
				if r%2 == 1 {
					order = []string{bounds[1], bounds[0]}
				}
				for _, bound := range order {
					peak, ts := signInBurstRound(b, bin, bound, burst, spread == "64-addresses")
					peaks[bound] = append(peaks[bound], peak)
					times[bound] = append(times[bound], ts...)
				}
			}
			for _, bound := range bounds {
				p, ts := peaks[bound], times[bound]
				slices.Sort(p)
				slices.Sort(ts)
				name := "bound-" + bound
				b.ReportMetric(p[len(p)/2], name+"-peak-MiB-median")
				b.ReportMetric(p[len(p)-1], name+"-peak-MiB-max")
				b.ReportMetric(float64(ts[len(ts)/2].Milliseconds()), name+"-answer-ms-p50")
				b.ReportMetric(float64(ts[len(ts)*99/100].Milliseconds()), name+"-answer-ms-p99")
			}
		})
	}
}

// buildPortal builds cmd/portal without the race detector.
func buildPortal(b *testing.B) string {
	b.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		b.Fatal(err)
	}
	root := filepath.Dir(strings.TrimSpace(string(out)))
	bin := filepath.Join(b.TempDir(), "portal")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/portal")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

var csrfField = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// signInBurstRound runs one fresh portal process, sends the burst and
// returns the process's peak resident memory (MiB) and each answer's time.
func signInBurstRound(b *testing.B, bin, bound string, burst int, manyAddresses bool) (float64, []time.Duration) {
	b.Helper()
	_, dbURL := testdb.NewWithURL(b)
	addr := freeAddrTB(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "serve")
	cmd.Env = append(os.Environ(),
		"PORTAL_DATABASE_URL="+dbURL,
		"PORTAL_ENCRYPTION_KEYS=k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
		"PORTAL_LISTEN_ADDR="+addr,
		"PORTAL_SANDBOX_LISTEN_ADDR="+freeAddrTB(b),
		"PORTAL_SANDBOX_DATA_DIR="+b.TempDir(),
		"PORTAL_STORAGE_DIR="+b.TempDir(),
		"PORTAL_LOG_LEVEL=error",
		"PORTAL_TRUSTED_PROXIES=127.0.0.1",
	)
	if bound != "default" {
		cmd.Env = append(cmd.Env, "PORTAL_PASSWORD_HASH_CONCURRENCY="+bound)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { cancel(); _ = cmd.Wait() }()
	base := "http://" + addr
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if res, err := http.Get(base + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			b.Fatal("portal did not become ready")
		}
	}
	// Each client loads the sign-in page first (its session and CSRF token),
	// then all post at once.
	type client struct {
		http *http.Client
		csrf string
	}
	clients := make([]client, burst)
	for i := range clients {
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
		clients[i] = client{http: c, csrf: string(m[1])}
	}
	start := make(chan struct{})
	times := make([]time.Duration, burst)
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			form := url.Values{"email": {"nobody@example.com"}, "password": {"wrong-password-" + strconv.Itoa(i)}, "csrf_token": {c.csrf}}
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
			res.Body.Close()
			times[i] = time.Since(t0)
			switch res.StatusCode {
			case http.StatusUnauthorized, http.StatusTooManyRequests, http.StatusServiceUnavailable:
			default:
				b.Errorf("sign-in answered %d", res.StatusCode)
			}
		}()
	}
	close(start)
	wg.Wait()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	if err != nil {
		b.Fatal(err)
	}
	m := regexp.MustCompile(`VmHWM:\s+(\d+) kB`).FindSubmatch(status)
	if m == nil {
		b.Fatal("no VmHWM")
	}
	kb, _ := strconv.Atoi(string(m[1]))
	return float64(kb) / 1024, times
}
