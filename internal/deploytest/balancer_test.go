package deploytest_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/testutil/portalproc"
)

// balancer is HAProxy (Debian's) in front of the replicas, configured as the
// issue's operator did: round robin, no stickiness, no retries, health checks
// of /readyz. It names the replica that answered in X-Served-By.
type balancer struct {
	url   string // the portal's public address
	stats string // HAProxy's statistics, as CSV
	proc  *portalproc.Process
}

// haproxyConfig is the balancer's configuration: frontend, replicas, stats.
// A replica is taken out after two failed checks 200 ms apart and put back
// after one good one; PORTAL_DRAIN_PERIOD (2 s) is well beyond that.
const haproxyConfig = `global
    maxconn 4096
    nbthread 1

defaults
    mode http
    timeout connect 2s
    timeout client 2m
    timeout server 2m
    timeout http-request 10s
    timeout check 2s
    retries 0
    option forwardfor

frontend portal
    bind %s
    default_backend replicas
    http-response set-header X-Served-By %%s

backend replicas
    balance roundrobin
    option httpchk GET /readyz
    http-check expect status 200
    default-server inter 200ms fall 2 rise 1
%s
frontend stats
    bind %s
    stats enable
    stats uri /stats
`

// startBalancer runs HAProxy in the foreground until the test ends.
func startBalancer(t *testing.T, addr, statsAddr string, replicas []string) *balancer {
	t.Helper()
	bin, err := exec.LookPath("haproxy")
	if err != nil {
		t.Fatal("haproxy is not installed: run the tests with `make test`, which installs it from Debian")
	}
	var servers strings.Builder
	for i, a := range replicas {
		fmt.Fprintf(&servers, "    server replica-%c %s check\n", 'a'+i, a)
	}
	cfg := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(haproxyConfig, addr, servers.String(), statsAddr)), 0o600); err != nil {
		t.Fatal(err)
	}
	b := &balancer{url: "http://" + addr, stats: "http://" + statsAddr + "/stats;csv"}
	b.proc = portalproc.StartCommand(t, bin, nil, "-db", "-f", cfg)
	testutil.Eventually(t, 20*time.Second, "HAProxy to serve its statistics", func() (bool, string) {
		select {
		case <-b.proc.Exited():
			t.Fatalf("haproxy stopped:\n%s", b.proc.Output())
		default:
		}
		_, err := b.states()
		return err == nil, fmt.Sprint(err)
	})
	return b
}

// states reads each replica's state as HAProxy sees it: UP, DOWN, ...
func (b *balancer) states() (map[string]string, error) {
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, b.stats, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	rows, err := csv.NewReader(res.Body).ReadAll()
	if err != nil || len(rows) == 0 {
		return nil, fmt.Errorf("statistics: %v", err)
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[strings.TrimPrefix(name, "# ")] = i
	}
	out := map[string]string{}
	for _, row := range rows[1:] {
		if row[col["pxname"]] == "replicas" && strings.HasPrefix(row[col["svname"]], "replica-") {
			out[row[col["svname"]]] = strings.Fields(row[col["status"]])[0]
		}
	}
	return out, nil
}

// waitState waits until HAProxy holds the replica in state (UP or DOWN).
func (b *balancer) waitState(t *testing.T, name, state string) {
	t.Helper()
	testutil.Eventually(t, 60*time.Second, "HAProxy to see "+name+" "+state, func() (bool, string) {
		s, err := b.states()
		if err != nil {
			return false, err.Error()
		}
		return s[name] == state, fmt.Sprint(s)
	})
}
