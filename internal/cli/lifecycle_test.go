package cli_test

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/cli"
	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// migrationLock is the advisory lock MigrateUp holds (internal/database).
const migrationLock int64 = 0x706f7274616c

// probe answers GET url's status and body; 0 when nothing answers.
func probe(url string) (int, string) {
	res, err := http.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// The listener opens before the portal migrates: /readyz answers "starting"
// until everything has started. On SIGTERM /readyz answers "draining" for the
// drain period while pages are still served, and only then does the listener
// close.
func TestServeOpensFirstAndDrainsBeforeClosing(t *testing.T) {
	t.Parallel()
	db, dbURL := testdb.NewEmpty(t)
	// Another instance migrating: this one waits for the lock, listening.
	held, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close(context.Background())
	if _, err := held.Exec(context.Background(), "SELECT pg_advisory_lock($1)", migrationLock); err != nil {
		t.Fatal(err)
	}
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
			"PORTAL_DRAIN_PERIOD":        "3s",
		}), &stdout, &stderr)
	}()
	base := "http://" + addr
	testutil.Eventually(t, 30*time.Second, "the listener to answer while migrations wait", func() (bool, string) {
		code, body := probe(base + "/readyz")
		return code == http.StatusServiceUnavailable && body == "starting\n", body
	})
	if code, _ := probe(base + "/healthz"); code != http.StatusOK {
		t.Errorf("/healthz while starting: %d", code)
	}
	if code, _ := probe(base + "/login"); code != http.StatusServiceUnavailable {
		t.Errorf("/login while starting: %d", code)
	}
	if _, err := held.Exec(context.Background(), "SELECT pg_advisory_unlock($1)", migrationLock); err != nil {
		t.Fatal(err)
	}
	waitReady(t, base+"/readyz", done, &stderr)
	if current, err := db.MigrationsCurrent(context.Background()); err != nil || !current {
		t.Fatalf("ready before the migrations: %v %v", current, err)
	}

	stop() // SIGTERM
	testutil.Eventually(t, 10*time.Second, "/readyz to say draining", func() (bool, string) {
		code, body := probe(base + "/readyz")
		return code == http.StatusServiceUnavailable && body == "draining\n", body
	})
	if code, body := probe(base + "/login"); code != http.StatusOK {
		t.Errorf("a page while draining: %d %s", code, body)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("serve exited %d:\n%s", code, stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("serve did not stop")
	}
	if code, _ := probe(base + "/readyz"); code != 0 {
		t.Errorf("the listener is still open after the stop: %d", code)
	}
}
