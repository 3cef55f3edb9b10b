package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payportal/portal/internal/cli"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// syncBuffer is a bytes.Buffer safe for the server goroutine and the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}
func (b *syncBuffer) String() string { b.mu.Lock(); defer b.mu.Unlock(); return b.buf.String() }

func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}

func freeAddr(t *testing.T) string {
	t.Helper()
	return freeAddrTB(t)
}

func freeAddrTB(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func TestServeRefusesABadConfigurationNamingTheVariable(t *testing.T) {
	var stdout, stderr syncBuffer
	code := cli.Run(context.Background(), []string{"serve"}, env(map[string]string{
		"PORTAL_DATABASE_URL":     "postgres://127.0.0.1:1/none",
		"PORTAL_ENCRYPTION_KEYS":  "k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
		"PORTAL_SESSION_LIFETIME": "forever",
	}), &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), `PORTAL_SESSION_LIFETIME must be a positive duration such as 30m or 12h, not "forever"`) {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
}

func TestUnknownCommandPrintsUsage(t *testing.T) {
	var stdout, stderr syncBuffer
	if code := cli.Run(context.Background(), []string{"launch"}, env(nil), &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "Usage: portal") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
}

// Stopping serve (SIGTERM cancels its context) lets a request already under
// way finish before the process exits.
func TestServeFinishesInFlightRequestsOnShutdown(t *testing.T) {
	t.Parallel()
	_, dbURL := testdb.NewWithURL(t)
	addr := freeAddr(t)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- cli.Run(ctx, []string{"serve"}, env(map[string]string{
			"PORTAL_DATABASE_URL":        dbURL,
			"PORTAL_ENCRYPTION_KEYS":     "k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
			"PORTAL_LISTEN_ADDR":         addr,
			"PORTAL_SANDBOX_LISTEN_ADDR": freeAddr(t),
			"PORTAL_SANDBOX_DATA_DIR":    t.TempDir(),
			"PORTAL_STORAGE_DIR":         t.TempDir(),
		}), &stdout, &stderr)
	}()
	waitReady(t, "http://"+addr+"/readyz", done, &stderr)
	if !strings.Contains(stdout.String(), "Created the first admin user") || !strings.Contains(stdout.String(), "Portal listening on http://"+addr) ||
		!strings.Contains(stdout.String(), "Sign in at http://"+addr+"/login") {
		t.Errorf("start-up output:\n%s", stdout.String())
	}

	// A request whose body is still to come when the stop arrives. With
	// "Expect: 100-continue" the server says "100 Continue" only once a handler
	// runs and asks for the body, so the stop certainly lands mid-request.
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := "email=a%40example.com&password=x"
	io.WriteString(conn, "POST /login HTTP/1.1\r\nHost: "+addr+"\r\nContent-Type: application/x-www-form-urlencoded\r\n"+
		"Expect: 100-continue\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n")
	reader := bufio.NewReader(conn)
	interim, err := http.ReadResponse(reader, nil)
	if err != nil || interim.StatusCode != http.StatusContinue {
		t.Fatalf("no 100 Continue: %v %v", interim, err)
	}
	stop()
	io.WriteString(conn, body)
	res, err := http.ReadResponse(reader, nil)
	if err != nil {
		t.Fatalf("the in-flight request got no answer: %v\n%s", err, stderr.String())
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden { // no CSRF token: refused, but answered
		t.Errorf("in-flight request: status %d", res.StatusCode)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("serve exited %d:\n%s", code, stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("serve did not stop")
	}
	if !strings.Contains(stderr.String(), "shutting down") {
		t.Errorf("no shutdown log line:\n%s", stderr.String())
	}
}

func waitReady(t *testing.T, url string, done <-chan int, stderr *syncBuffer) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case code := <-done:
			t.Fatalf("serve exited %d before it was ready:\n%s", code, stderr.String())
		case <-deadline:
			t.Fatalf("serve not ready:\n%s", stderr.String())
		case <-tick.C:
			if res, err := http.Get(url); err == nil {
				res.Body.Close()
				if res.StatusCode == http.StatusOK {
					return
				}
			}
		}
	}
}
