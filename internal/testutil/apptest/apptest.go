// Package apptest starts the whole portal on a fresh test database behind a real
// HTTP listener, and gives tests browser-like clients that keep cookies and send
// CSRF tokens the way the pages do.
package apptest

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"log/slog"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/payportal/portal/internal/app"
	"github.com/payportal/portal/internal/auth"
	"github.com/payportal/portal/internal/config"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// Env is a running portal for one test.
type Env struct {
	URL    string
	App    *app.App
	DB     *database.DB
	DBURL  string
	Clock  *Clock
	Config *config.Config
	// Sandbox is the sandbox upstream the portal talks to, with WithSandbox.
	Sandbox *app.RunningSandbox
}

// Option adjusts the environment before the portal is built.
type Option func(*settings)

type settings struct {
	vars          map[string]string
	throttle      *auth.ThrottleLimits
	noWorkers     bool
	jobRetryDelay func(attempt int) time.Duration
	jobPoll       time.Duration
	sandbox       *sandboxSettings
}

// WithEnv sets a PORTAL_* variable for the portal under test.
func WithEnv(name, value string) Option { return func(s *settings) { s.vars[name] = value } }

// WithThrottle overrides the sign-in throttling limits.
func WithThrottle(l auth.ThrottleLimits) Option { return func(s *settings) { s.throttle = &l } }

// WithoutWorkers builds the portal without starting its background job
// workers, for tests that check what was enqueued or start them later with
// env.App.Jobs.Start.
func WithoutWorkers() Option { return func(s *settings) { s.noWorkers = true } }

// WithJobRetryDelay replaces the wait before a failed job's next attempt
// (50 ms by default in tests, so retries need no waiting).
func WithJobRetryDelay(delay func(attempt int) time.Duration) Option {
	return func(s *settings) { s.jobRetryDelay = delay }
}

// WithJobPollInterval replaces how often the job workers look for work that
// no notification announced (50 ms by default in tests); it also bounds the
// cooldown between two fetches, so benchmarks shorten it to measure the push
// rather than the queue.
func WithJobPollInterval(d time.Duration) Option {
	return func(s *settings) { s.jobPoll = d }
}

// New starts the portal on a fresh database and stops it when the test ends.
func New(t testing.TB, opts ...Option) *Env {
	t.Helper()
	db, dbURL := testdb.NewWithURL(t)
	s := &settings{vars: map[string]string{
		"PORTAL_DATABASE_URL":    dbURL,
		"PORTAL_ENCRYPTION_KEYS": "test:" + randomKey(),
		"PORTAL_STORAGE_DIR":     t.TempDir(),
		"PORTAL_RESELLER_NAME":   "Test Payments",
	}}
	for _, o := range opts {
		o(s)
	}
	// The listener comes first, so the portal knows its own address (links in
	// e-mails, the sandbox's webhooks) before it is built.
	srv := httptest.NewUnstartedServer(nil)
	publicURL := "http://" + srv.Listener.Addr().String()
	if _, set := s.vars["PORTAL_PUBLIC_URL"]; !set {
		s.vars["PORTAL_PUBLIC_URL"] = publicURL
	}
	sb, upstreamClient := s.startSandbox(t, publicURL)
	cfg, err := config.Load(func(k string) (string, bool) { v, ok := s.vars[k]; return v, ok })
	if err != nil {
		t.Fatalf("test config: %v", err)
	}
	clock := NewClock(time.Now())
	if s.jobRetryDelay == nil {
		s.jobRetryDelay = func(int) time.Duration { return 50 * time.Millisecond }
	}
	if s.jobPoll <= 0 {
		s.jobPoll = 50 * time.Millisecond
	}
	a, err := app.Build(context.Background(), cfg, db, slog.New(slog.DiscardHandler), app.Options{
		Now: clock.Now, Throttle: s.throttle,
		JobPollInterval: s.jobPoll, JobRetryDelay: s.jobRetryDelay,
		Upstream: upstreamClient, PushRetryDelay: 10 * time.Millisecond,
	})
	if err != nil {
		t.Fatalf("build portal: %v", err)
	}
	if !s.noWorkers {
		if err := a.Jobs.Start(context.Background()); err != nil {
			t.Fatalf("start job workers: %v", err)
		}
		// Runs before the database closes (cleanups run last-registered first).
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = a.Jobs.StopAndCancel(ctx)
		})
	}
	srv.Config.Handler = a.Handler
	srv.Start()
	t.Cleanup(srv.Close)
	return &Env{URL: srv.URL, App: a, DB: db, DBURL: dbURL, Clock: clock, Config: cfg, Sandbox: sb}
}

// CreateUser adds an active user with a known password and returns both.
func (e *Env) CreateUser(t testing.TB, email string, role models.Role) (*models.User, string) {
	t.Helper()
	password := "correct-horse-battery-" + randomKey()[:6]
	u, _, err := e.App.Auth.CreateUser(context.Background(), auth.NewUser{Email: email, Name: email, Role: role, Password: password})
	if err != nil {
		t.Fatalf("create user %s: %v", email, err)
	}
	return u, password
}

// Clock is a settable clock for the portal's services.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock reading t.
func NewClock(t time.Time) *Clock { return &Clock{now: t} }

// Now reads the clock.
func (c *Clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

func randomKey() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}
