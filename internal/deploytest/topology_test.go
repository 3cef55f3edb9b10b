package deploytest_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payportal/portal/internal/app"
	sbpayments "github.com/payportal/portal/internal/sandbox/payments"
	"github.com/payportal/portal/internal/testutil/portalproc"
	"github.com/payportal/portal/internal/testutil/s3server"
	"github.com/payportal/portal/internal/testutil/smtpserver"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// dbLimit is the connections the portal's role may hold in its database: a
// stock PostgreSQL's max_connections. headroom is left for the test's own
// connections, as an operator leaves it for psql.
const (
	dbLimit  = 100
	headroom = 15
)

// topology is three replicas of the real binary on one Postgres database (as
// a role of its own, limited to dbLimit connections), one S3 (versitygw), one
// standalone sandbox as the shared upstream (on a manual clock) and one SMTP
// server, behind HAProxy.
type topology struct {
	// life is the whole test: processes live as long as it, not as the
	// scenario (a subtest) that started them.
	life  testing.TB
	bin   string
	vars  map[string]string // every replica's environment but its own address and name
	super string            // the database as a superuser, for the test's own look-ups
	role  string            // the database as the portal's role
	db    *pgxpool.Pool     // the test's own connections (superuser)
	// sandbox is the standalone sandbox's address; sandboxToken its admin password.
	sandbox, sandboxToken string
	s3                    s3server.Server
	smtp                  *smtpserver.Server
	lb                    *balancer
	replicas              []*replica
	// portal is an in-process portal without workers on the same database:
	// the test seeds through it what pages would take long to make.
	portal *app.App
}

// replica is one `portal serve` behind the balancer.
type replica struct {
	name string
	addr string
	proc *portalproc.Process
	// runs are every process this replica has been, the current last.
	runs []*portalproc.Process
}

// newTopology starts everything but the replicas.
func newTopology(t *testing.T) *topology {
	t.Helper()
	tp := &topology{life: t, bin: portalproc.Build(t), sandboxToken: uuid.NewString()}
	tp.database(t)
	tp.s3 = s3server.Start(t)
	tp.smtp = smtpserver.Start(t)
	addrs := []string{lowAddr(t), lowAddr(t), lowAddr(t)}
	tp.lb = startBalancer(t, lowAddr(t), lowAddr(t), addrs)
	upstreamToken, webhookToken := uuid.NewString(), uuid.NewString()
	tp.startSandbox(t, upstreamToken, webhookToken)
	tp.vars = map[string]string{
		"PORTAL_DATABASE_URL": tp.role, "PORTAL_ENCRYPTION_KEYS": keyRing(t),
		"PORTAL_PUBLIC_URL": tp.lb.url, "PORTAL_REPLICAS": "3", "PORTAL_DB_HEADROOM": strconv.Itoa(headroom),
		"PORTAL_TRUSTED_PROXIES": "127.0.0.1", "PORTAL_DRAIN_PERIOD": "2s", "PORTAL_LOG_LEVEL": "info",
		"PORTAL_UPSTREAM_MODE": "remote", "PORTAL_UPSTREAM_BASE_URL": tp.sandbox + "/v2",
		"PORTAL_UPSTREAM_TOKEN": upstreamToken, "PORTAL_UPSTREAM_WEBHOOK_TOKEN": webhookToken,
		"PORTAL_PAYMENTS_BASE_URL": tp.sandbox + sbpayments.DefaultBasePath, "PORTAL_TERMINALS_BASE_URL": tp.sandbox,
		"PORTAL_SANDBOX_ADMIN_URL": tp.sandbox, "PORTAL_SANDBOX_ADMIN_TOKEN": tp.sandboxToken,
		"PORTAL_STORAGE": "s3", "PORTAL_S3_ENDPOINT": tp.s3.Endpoint, "PORTAL_S3_REGION": tp.s3.Region,
		"PORTAL_S3_BUCKET": tp.s3.Bucket, "PORTAL_S3_ACCESS_KEY_ID": tp.s3.AccessKeyID,
		"PORTAL_S3_SECRET_ACCESS_KEY": tp.s3.SecretAccessKey, "PORTAL_S3_PATH_STYLE": "true",
		"PORTAL_SMTP_HOST": tp.smtp.Host, "PORTAL_SMTP_PORT": tp.smtp.PortString(), "PORTAL_SMTP_TLS": "none",
		// A dead replica's jobs and terminal transactions are taken over 3 s after it stopped.
		"PORTAL_JOB_LEASE": "3s", "PORTAL_TERMINALS_LEASE": "3s",
		"PORTAL_PAYMENTS_CALL_TIMEOUT": "3s", "PORTAL_PAYMENTS_CHECK_EVERY": "1s",
	}
	for i, addr := range addrs {
		tp.replicas = append(tp.replicas, &replica{name: "replica-" + string(rune('a'+i)), addr: addr})
	}
	return tp
}

// database makes an empty database owned by a role of its own, limited to
// dbLimit connections (superusers, as the test connects, are not limited).
func (tp *topology) database(t *testing.T) {
	t.Helper()
	db, super := testdb.NewEmpty(t)
	tp.super, tp.db = super, db.Pool
	u, err := url.Parse(super)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	role := "portal_" + strings.ReplaceAll(uuid.NewString()[:8], "-", "")
	ctx := context.Background()
	for _, q := range []string{
		"CREATE ROLE " + role + " LOGIN",
		"ALTER DATABASE " + name + " OWNER TO " + role,
		fmt.Sprintf("ALTER DATABASE %s CONNECTION LIMIT %d", name, dbLimit),
	} {
		if _, err := db.Pool.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), super)
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		_, _ = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		_, _ = c.Exec(context.Background(), "DROP ROLE IF EXISTS "+role)
	})
	u.User = url.User(role)
	tp.role = u.String()
}

// startSandbox runs `portal sandbox` on a manual clock, sending its webhooks
// to the balancer.
func (tp *topology) startSandbox(t *testing.T, upstreamToken, webhookToken string) {
	t.Helper()
	addr := lowAddr(t)
	p := portalproc.StartCommand(t, tp.bin, map[string]string{
		"PORTAL_SANDBOX_LISTEN_ADDR": addr, "PORTAL_SANDBOX_DATA_DIR": t.TempDir(),
		"PORTAL_SANDBOX_TOKENS": upstreamToken, "PORTAL_SANDBOX_ADMIN_TOKEN": tp.sandboxToken,
		"PORTAL_SANDBOX_WEBHOOK_URL": tp.lb.url + "/webhooks/upstream", "PORTAL_SANDBOX_WEBHOOK_TOKEN": webhookToken,
		"PORTAL_SANDBOX_PRICING_CODES": pricingCode, "PORTAL_SANDBOX_CLOCK": "manual",
		"PORTAL_SANDBOX_UNDERWRITING_DELAY": "off", "PORTAL_SANDBOX_LATENCY": "100ms",
	}, "sandbox")
	if !p.WaitPrinted(t, "Sandbox upstream listening", 30*time.Second) {
		t.Fatalf("the sandbox did not start:\n%s", p.Output())
	}
	tp.sandbox = "http://" + addr
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("sandbox:\n%s", tail(p.Output(), 4000))
		}
	})
}

// start runs the replica's next process, for the rest of the test.
func (tp *topology) start(r *replica) {
	vars := map[string]string{"PORTAL_LISTEN_ADDR": r.addr, "PORTAL_INSTANCE_NAME": r.name}
	for k, v := range tp.vars {
		vars[k] = v
	}
	r.proc = portalproc.Start(tp.life, tp.bin, vars)
	r.runs = append(r.runs, r.proc)
}

// waitServing waits until the replica's current process serves and the
// balancer sends it traffic again.
func (tp *topology) waitServing(t *testing.T, r *replica) {
	t.Helper()
	if !r.proc.WaitStarted(t, 90*time.Second) {
		t.Fatalf("%s did not start:\n%s", r.name, tail(r.proc.Output(), 4000))
	}
	tp.lb.waitState(t, r.name, "UP")
}

// replicaOf finds the replica named at the start of a River client id or a
// terminal follower's name ("replica-b_2026_..." or "replica-b-1f2e3d4c").
func (tp *topology) replicaOf(worker string) *replica {
	for _, r := range tp.replicas {
		if strings.HasPrefix(worker, r.name+"_") || strings.HasPrefix(worker, r.name+"-") {
			return r
		}
	}
	return nil
}

// logs is every replica's output, for a failing test.
func (tp *topology) logs() string {
	var b strings.Builder
	for _, r := range tp.replicas {
		for i, p := range r.runs {
			fmt.Fprintf(&b, "=== %s, process %d:\n%s\n", r.name, i+1, tail(p.Output(), 6000))
		}
	}
	return b.String()
}

// count runs a counting query on the test's own connection.
func (tp *topology) count(t testing.TB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := tp.db.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// lowAddr is a free loopback address below the ephemeral port range, so no
// outgoing connection takes it while a killed replica is down.
func lowAddr(t testing.TB) string {
	t.Helper()
	for range 100 {
		addr := "127.0.0.1:" + strconv.Itoa(20000+rand.IntN(12000))
		ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", addr)
		if err == nil {
			_ = ln.Close()
			return addr
		}
	}
	t.Fatal("no free port below 32000")
	return ""
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
