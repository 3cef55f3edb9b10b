package deploytest_test

import (
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/migrations"
)

// TestReplicasBehindABalancer runs three replicas of the real binary on one
// Postgres, one S3 and one standalone sandbox behind HAProxy (round robin, no
// stickiness, no retries, /readyz checked), and works through them as people
// and the processor do: every scenario of issue 24's "Replicas" in turn, each
// waiting for conditions. The seconds each takes are logged (BENCHMARKS.md).
func TestReplicasBehindABalancer(t *testing.T) {
	t.Parallel()
	began := time.Now()
	tp := newTopology(t)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("replicas:\n%s", tp.logs())
		}
	})
	// Three replicas starting together on an empty database.
	for _, r := range tp.replicas {
		tp.start(r)
	}
	for _, r := range tp.replicas {
		tp.waitServing(t, r)
	}
	t.Logf("topology up in %.1f s", time.Since(began).Seconds())
	tp.portal = inProcess(t, tp.vars, tp.super)
	w := &work{tp: tp}
	w.seed(t)
	t.Logf("seeded in %.1f s", time.Since(began).Seconds())

	steps := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"three replicas starting together migrate once", w.migratedOnce},
		{"a client forging X-Forwarded-For is throttled by its real address", w.forgedAddress},
		{"sign in and work on any replica; an edit is seen through the others", w.editsSeenEverywhere},
		{"50 submissions push exactly once though a replica is killed mid-push", w.pushesOnceDespiteAKill},
		{"a replica killed mid-terminal-follow: another records the sale", w.terminalTakenOver},
		{"a replica killed during a payment's unknown-outcome check: another reads it back", w.paymentReadBack},
		{"reminders and digests go out once", w.remindersOnce},
		{"a burst of clients stays within the connection budget", w.burstWithinBudget},
		{"a rolling restart: no 5xx at the balancer, no lost or doubled POST", w.rollingRestart},
	}
	for _, s := range steps {
		start := time.Now()
		if !t.Run(s.name, s.run) {
			t.FailNow()
		}
		t.Logf("%s: %.1f s", s.name, time.Since(start).Seconds())
	}
	t.Logf("the whole run: %.1f s", time.Since(began).Seconds())
	for _, f := range w.figures {
		t.Log(f)
	}
}

// work is what the scenarios share: the topology and what was seeded.
type work struct {
	tp       *topology
	admin    *models.User
	rep      *models.User
	password string
	// ready are the drafts submitted through the balancer.
	ready []uuid.UUID
	// figures are the measurements the run reports (BENCHMARKS.md).
	figures []string
}

// seed makes the people the scenarios sign in as.
func (w *work) seed(t *testing.T) {
	t.Helper()
	w.admin, _ = createUser(t, w.tp.portal, "ops@example.com", models.RoleAdmin)
	w.rep, w.password = createUser(t, w.tp.portal, "rep@example.com", models.RoleSalesRep)
	w.ready = seedReadyApplications(t, w.tp.portal, w.rep, seedPricingModel(t, w.tp.portal), submissions)
}

var migrationLine = regexp.MustCompile(`msg="migration applied" version=(\d+)`)

// migratedOnce: each migration was applied by exactly one of the replicas.
func (w *work) migratedOnce(t *testing.T) {
	files, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	applied := map[string][]string{}
	for _, r := range w.tp.replicas {
		for _, m := range migrationLine.FindAllStringSubmatch(r.runs[0].Output(), -1) {
			applied[m[1]] = append(applied[m[1]], r.name)
		}
	}
	if len(applied) != len(files) {
		t.Errorf("%d migrations applied, want %d", len(applied), len(files))
	}
	for v, by := range applied {
		if len(by) != 1 {
			t.Errorf("migration %s applied by %v", v, by)
		}
	}
	if n := w.tp.count(t, "SELECT count(*) FROM goose_db_version WHERE version_id > 0"); n != len(files) {
		t.Errorf("goose_db_version holds %d migrations, want %d", n, len(files))
	}
}

// forgedAddress: sign-in failures count against the address the balancer saw,
// whatever X-Forwarded-For the client sends, on whichever replica answers;
// another client is told apart.
func (w *work) forgedAddress(t *testing.T) {
	forger := newClient(w.tp.lb.url, "127.0.0.2")
	forger.get("/login")
	servers := map[string]bool{}
	for i := 1; ; i++ {
		res := forger.postFormWith("/login", url.Values{"email": {fmt.Sprintf("nobody%d@example.com", i)}, "password": {"wrong"}},
			http.Header{"X-Forwarded-For": {fmt.Sprintf("203.0.113.%d", i)}})
		servers[res.Server] = true
		if res.Status == http.StatusTooManyRequests {
			if i != 21 {
				t.Errorf("throttled at attempt %d, want 21 (20 failures per address)", i)
			}
			break
		}
		if res.Status != http.StatusUnauthorized {
			t.Fatalf("attempt %d: %d %v, want 401 until the 21st", i, res.Status, res.Err)
		}
		if i > 25 {
			t.Fatalf("%d failed sign-ins from one address, each naming another in X-Forwarded-For, and never throttled", i)
		}
	}
	if len(servers) < 3 {
		t.Errorf("the failures went to %v only", servers)
	}
	other := newClient(w.tp.lb.url, "127.0.0.3")
	other.get("/login")
	if res := other.postForm("/login", url.Values{"email": {w.rep.Email}, "password": {"wrong"}}); res.Status != http.StatusUnauthorized {
		t.Errorf("another client's failed sign-in: %d, want 401", res.Status)
	}
	other.signIn(t, w.rep.Email, w.password)
}

var versionField = regexp.MustCompile(`name="version" id="version-business" value="(\d+)"`)

// editsSeenEverywhere: a rep signed in through the balancer works on every
// replica; each edit, made through one, is on the page the next requests get
// from the others.
func (w *work) editsSeenEverywhere(t *testing.T) {
	c := newClient(w.tp.lb.url, "127.0.0.4")
	c.signIn(t, w.rep.Email, w.password)
	created := c.postForm("/applications", nil)
	if created.Status != http.StatusSeeOther {
		t.Fatalf("new application: %d %v", created.Status, created.Err)
	}
	path := created.Location
	servers := map[string]int{}
	reads := 0
	for i := range 9 {
		page := c.get(path)
		m := versionField.FindStringSubmatch(page.Body)
		if page.Status != http.StatusOK || m == nil {
			t.Fatalf("application page: %d\n%s", page.Status, page.Body)
		}
		dba := fmt.Sprintf("Replica Bakery %d", i)
		saved := c.postForm(path+"/sections/business", url.Values{"version": {m[1]}, "business.dba": {dba}})
		if saved.Status != http.StatusSeeOther {
			t.Fatalf("save %d: %d\n%s", i, saved.Status, saved.Body)
		}
		servers[saved.Server]++
		for range 2 {
			read := c.get(path)
			reads++
			servers[read.Server]++
			if !strings.Contains(read.Body, `value="`+dba+`"`) {
				t.Errorf("edit %d made on %s, read on %s: stale", i, saved.Server, read.Server)
			}
		}
	}
	if len(servers) != 3 {
		t.Errorf("the rep's requests went to %v", servers)
	}
	t.Logf("%d reads after an edit, all fresh; requests per replica %v", reads, servers)
}
