package webhooks_test

import (
	"cmp"
	"context"
	"crypto/rand"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/apikeys"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/jobs"
	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/testdb"
	"github.com/payportal/portal/internal/webhooks"
)

// clock is the injected clock of the service: tests move it, never sleep.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time          { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// fixture is the room on a fresh database: an admin, two reps, their keys, a queue.
type fixture struct {
	db       *database.DB
	queue    *jobs.Queue
	svc      *webhooks.Service
	emit     *webhooks.Emitter
	keys     *apikeys.Service
	clock    *clock
	admin    *models.User
	rep      *models.User
	otherRep *models.User
	// repKey acts as rep; resellerKey reaches everyone's objects.
	repKey, resellerKey *apikeys.Key
}

type options struct {
	workers      bool
	allowPrivate bool
	// retryDelay is the wait after a failed attempt (20 ms when zero).
	retryDelay time.Duration
	// concurrency is the webhook workers' (4 when zero).
	concurrency int
}

func setup(t testing.TB, o options) *fixture {
	t.Helper()
	db := testdb.New(t)
	f := &fixture{db: db, clock: &clock{now: time.Now().UTC().Truncate(time.Second)}}
	log := slog.New(slog.DiscardHandler)
	q, err := jobs.New(db.Pool, jobs.Config{RunWorkers: true, WebhookConcurrency: cmp.Or(o.concurrency, 4), PollInterval: 20 * time.Millisecond,
		RetryDelay: func(int) time.Duration { return 20 * time.Millisecond }}, log)
	if err != nil {
		t.Fatal(err)
	}
	f.queue = q
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	ring, err := fieldcrypt.NewKeyRing("k1", map[string][]byte{"k1": key})
	if err != nil {
		t.Fatal(err)
	}
	outbox := mail.NewOutbox(mail.Deps{Pool: db.Pool, Queue: q, KeyRing: ring, Now: f.clock.Now, Log: log})
	public, _ := url.Parse("https://portal.example.com")
	f.svc, f.emit = webhooks.Register(webhooks.Deps{
		Store: webhooks.NewStore(db.Pool), Keys: apikeys.NewStore(db.Pool), Ring: ring, Queue: q, Outbox: outbox,
		PublicURL: public, ResellerName: "Test Payments", AllowPrivate: o.allowPrivate, Metrics: webhooks.NewMetrics(nil),
		Now: f.clock.Now, Log: log,
	}, webhooks.NewSender(webhooks.SenderOptions{AllowPrivate: o.allowPrivate, Timeout: 2 * time.Second}),
		func(int) time.Duration { return cmp.Or(o.retryDelay, 20*time.Millisecond) })
	if o.workers {
		f.start(t)
	}
	f.keys = apikeys.NewService(apikeys.NewStore(db.Pool), apikeys.Options{Now: f.clock.Now})
	f.admin = f.user(t, "Ada", models.RoleAdmin)
	f.rep = f.user(t, "Rita", models.RoleSalesRep)
	f.otherRep = f.user(t, "Otto", models.RoleSalesRep)
	f.repKey = f.key(t, "Salon Pro", apikeys.ScopeRep, f.rep.ID.String())
	f.resellerKey = f.key(t, "Gym Cloud", apikeys.ScopeReseller, "")
	return f
}

// start runs the job workers until the test ends.
func (f *fixture) start(t testing.TB) {
	t.Helper()
	if err := f.queue.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = f.queue.StopAndCancel(ctx)
	})
}

func (f *fixture) user(t testing.TB, name string, role models.Role) *models.User {
	t.Helper()
	u := &models.User{ID: uuid.New(), Email: strings.ToLower(name) + "@example.com", Name: name, Role: role, Active: true}
	if _, err := f.db.Pool.Exec(context.Background(), `INSERT INTO users (id, email, name, role, password_hash) VALUES ($1, $2, $3, $4, 'x')`,
		u.ID, u.Email, u.Name, string(u.Role)); err != nil {
		t.Fatal(err)
	}
	return u
}

func (f *fixture) key(t testing.TB, name string, scope apikeys.ScopeKind, rep string) *apikeys.Key {
	t.Helper()
	k, _, err := f.keys.Create(context.Background(), f.admin, apikeys.NewKey{Name: name, Scope: scope, RepID: rep, Access: apikeys.AccessRead})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// endpoint registers an endpoint of key for events and returns it with its secret.
func (f *fixture) endpoint(t testing.TB, address string, key *apikeys.Key, events ...webhooks.EventType) (*webhooks.Endpoint, string) {
	t.Helper()
	form := webhooks.EndpointForm{URL: address, KeyID: key.ID.String()}
	for _, e := range events {
		form.Events = append(form.Events, string(e))
	}
	e, secret, err := f.svc.Create(context.Background(), f.admin, form)
	if err != nil {
		t.Fatal(err)
	}
	return e, secret
}

// application stores an application of owner and returns its id.
func (f *fixture) application(t testing.TB, owner *models.User) uuid.UUID {
	t.Helper()
	id := uuid.New()
	if _, err := f.db.Pool.Exec(context.Background(), `INSERT INTO applications (id, owner_id, status, upstream_status) VALUES ($1, $2, 'linked', 'boarded')`,
		id, owner.ID); err != nil {
		t.Fatal(err)
	}
	return id
}

// merchant stores a merchant of an application of owner and returns its id.
func (f *fixture) merchant(t testing.TB, owner *models.User) uuid.UUID {
	t.Helper()
	id, now := uuid.New(), f.clock.Now()
	if _, err := f.db.Pool.Exec(context.Background(), `INSERT INTO merchants (id, application_id, name, boarded_at, created_at, updated_at)
		VALUES ($1, $2, 'Bistro', $3, $3, $3)`, id, f.application(t, owner), now); err != nil {
		t.Fatal(err)
	}
	return id
}

// emitIn emits n in a transaction of its own, committed or rolled back.
func (f *fixture) emitIn(t testing.TB, commit bool, n webhooks.News) {
	t.Helper()
	ctx := context.Background()
	tx, err := f.db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if err := f.emit.Emit(ctx, tx, n); err != nil {
		t.Fatal(err)
	}
	if commit {
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

func (f *fixture) count(t testing.TB, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := f.db.Pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// received is one request a test receiver got.
type received struct {
	Header http.Header
	Body   []byte
}

// receiver is a test endpoint: it records every request and answers with the codes
// of answers in turn (the last one again once they run out).
type receiver struct {
	*httptest.Server
	mu      sync.Mutex
	got     []received
	answers []int
}

func newReceiver(t *testing.T, tls bool, answers ...int) *receiver {
	t.Helper()
	r := &receiver{answers: answers}
	h := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, received{Header: req.Header.Clone(), Body: body})
		code := http.StatusNoContent
		if n := len(r.got); len(r.answers) > 0 {
			code = r.answers[min(n, len(r.answers))-1]
		}
		r.mu.Unlock()
		w.WriteHeader(code)
		_, _ = io.WriteString(w, "receiver-private-answer-body")
	})
	if tls {
		r.Server = httptest.NewTLSServer(h)
	} else {
		r.Server = httptest.NewServer(h)
	}
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) requests() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}
