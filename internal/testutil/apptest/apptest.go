// Package apptest starts the whole portal on a fresh test database behind a real
// HTTP listener, and gives tests browser-like clients that keep cookies and send
// CSRF tokens the way the pages do.
package apptest

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payportal/portal/internal/app"
	"github.com/payportal/portal/internal/auth"
	"github.com/payportal/portal/internal/config"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/testdb"
	terminalsapi "github.com/payportal/portal/internal/upstream/terminals"
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

	mu         sync.Mutex
	mfaSecrets map[string]string // lower-case e-mail → TOTP secret
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
	terminals     *terminalsapi.ManualClock
	// log receives every log line of the portal and its sandbox; nil discards them.
	log        slog.Handler
	configPool bool
	// start is the clock's first reading (now when zero).
	start time.Time
	// dbURL is an existing database to start on instead of a fresh one.
	dbURL string
}

// WithDatabaseURL starts the portal on an existing database (another portal's, stopped or
// not, or a restored one) instead of a fresh one, for tests that restart the portal on the
// same data with another configuration.
func WithDatabaseURL(url string) Option { return func(s *settings) { s.dbURL = url } }

// WithStartTime starts the portal's clock at t instead of now (screenshots
// read the same every run).
func WithStartTime(t time.Time) Option { return func(s *settings) { s.start = t } }

// WithLogOutput writes every log line of the portal and of the sandbox, at debug level and
// as JSON, to w (safe for concurrent writes), for tests that read what was logged.
func WithLogOutput(w io.Writer) Option {
	return func(s *settings) {
		s.log = slog.NewJSONHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug})
	}
}

// logger is the log of the portal under test.
func (s *settings) logger() *slog.Logger {
	if s.log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(s.log)
}

// WithLogger sends the portal's log lines to h (they are discarded by
// default), for tests that read what the portal logs.
func WithLogger(h slog.Handler) Option { return func(s *settings) { s.log = h } }

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

// WithConfiguredPool gives the portal a database pool of the size its
// configuration asks for (PORTAL_DB_MAX_CONNS or its default), as `portal
// serve` opens it, instead of the test database's small one; benchmarks of
// the background work use it.
func WithConfiguredPool() Option { return func(s *settings) { s.configPool = true } }

// New starts the portal on a fresh database and stops it when the test ends.
func New(t testing.TB, opts ...Option) *Env {
	t.Helper()
	s := &settings{vars: map[string]string{
		"PORTAL_ENCRYPTION_KEYS": "test:" + randomKey(),
		"PORTAL_STORAGE_DIR":     t.TempDir(),
		"PORTAL_RESELLER_NAME":   "Test Payments",
		// Test receivers of the partner webhooks listen on the loopback.
		"PORTAL_WEBHOOKS_ALLOW_PRIVATE": "true",
	}}
	for _, o := range opts {
		o(s)
	}
	db, dbURL := s.database(t)
	s.vars["PORTAL_DATABASE_URL"] = dbURL
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
	if s.configPool {
		if db, err = database.Open(context.Background(), dbURL, cfg.DBMaxConns, slog.New(slog.DiscardHandler)); err != nil {
			t.Fatalf("open the configured pool: %v", err)
		}
		t.Cleanup(db.Close)
	}
	start := s.start
	if start.IsZero() {
		start = time.Now()
	}
	clock := NewClock(start)
	if s.jobRetryDelay == nil {
		s.jobRetryDelay = func(int) time.Duration { return 50 * time.Millisecond }
	}
	if s.jobPoll <= 0 {
		s.jobPoll = 50 * time.Millisecond
	}
	a, err := app.Build(context.Background(), cfg, db, s.logger(), app.Options{
		Now: clock.Now, Throttle: s.throttle,
		JobPollInterval: s.jobPoll, JobRetryDelay: s.jobRetryDelay,
		Upstream: upstreamClient, PushRetryDelay: 10 * time.Millisecond,
		TerminalsClock: s.terminalsClock(), WebhookRetryDelay: s.jobRetryDelay,
	})
	if err != nil {
		t.Fatalf("build portal: %v", err)
	}
	if !s.noWorkers {
		if err := a.Jobs.Start(context.Background()); err != nil {
			t.Fatalf("start job workers: %v", err)
		}
		a.Terminals.Start(context.Background())
		// Runs before the database closes (cleanups run last-registered first).
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = a.Jobs.StopAndCancel(ctx)
			_ = a.Terminals.Stop(ctx)
		})
	}
	srv.Config.Handler = a.Handler
	srv.Start()
	t.Cleanup(srv.Close)
	return &Env{URL: srv.URL, App: a, DB: db, DBURL: dbURL, Clock: clock, Config: cfg, Sandbox: sb, mfaSecrets: map[string]string{}}
}

// database opens the database the portal starts on: a fresh one, or WithDatabaseURL's.
func (s *settings) database(t testing.TB) (*database.DB, string) {
	t.Helper()
	if s.dbURL == "" {
		return testdb.NewWithURL(t)
	}
	db, err := database.Open(context.Background(), s.dbURL, 20, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("open the database: %v", err)
	}
	t.Cleanup(db.Close)
	return db, s.dbURL
}

// CreateUser adds an active user with a known password and returns both.
// A user whose role requires two-step sign-in (admins) gets it set up with a
// secret the environment keeps, so Client.Login and TOTP can answer the
// code step as a person with an authenticator app would.
func (e *Env) CreateUser(t testing.TB, email string, role models.Role) (*models.User, string) {
	t.Helper()
	ctx := context.Background()
	password := "correct-horse-battery-" + randomKey()[:6]
	u, _, err := e.App.Auth.CreateUser(ctx, auth.NewUser{Email: email, Name: email, Role: role, Password: password})
	if err != nil {
		t.Fatalf("create user %s: %v", email, err)
	}
	if required, err := e.App.Auth.MFARequired(ctx, u); err != nil || !required {
		return u, password
	}
	e.EnrolMFA(t, u)
	fresh, err := e.App.Auth.Users().ByID(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	return fresh, password
}

// EnrolMFA sets up two-step sign-in for u with a secret the environment
// keeps (see TOTP).
func (e *Env) EnrolMFA(t testing.TB, u *models.User) {
	t.Helper()
	ctx := context.Background()
	enr, err := e.App.Auth.BeginEnrolment(ctx, u)
	if err != nil {
		t.Fatalf("MFA enrolment of %s: %v", u.Email, err)
	}
	secret := strings.ReplaceAll(enr.Secret, " ", "")
	if _, err := e.App.Auth.ConfirmEnrolment(ctx, u, auth.TOTPCode(secret, e.Clock.Now()), "127.0.0.1"); err != nil {
		t.Fatalf("MFA enrolment of %s: %v", u.Email, err)
	}
	// The enrolment used the current step; free it so the first sign-in of
	// the test can use the current code.
	if err := e.DB.Gorm.Exec("UPDATE users SET mfa_last_step = 0 WHERE id = ?", u.ID).Error; err != nil {
		t.Fatal(err)
	}
	e.mu.Lock()
	e.mfaSecrets[strings.ToLower(u.Email)] = secret
	e.mu.Unlock()
}

// TOTP returns a function giving the current code of the user's
// authenticator, for browser sign-ins. Each call moves the clock to the
// next 30-second step when the current one was used already (a code is
// good once), as a person would wait for the next code.
func (e *Env) TOTP(t testing.TB, email string) func() string {
	return func() string {
		t.Helper()
		e.mu.Lock()
		secret, ok := e.mfaSecrets[strings.ToLower(email)]
		e.mu.Unlock()
		if !ok {
			t.Fatalf("no authenticator secret for %s", email)
		}
		var last int64
		if err := e.DB.Gorm.Raw("SELECT mfa_last_step FROM users WHERE lower(email) = lower(?)", email).Scan(&last).Error; err != nil {
			t.Fatal(err)
		}
		if now := e.Clock.Now(); now.Unix()/30 <= last {
			e.Clock.Advance(time.Duration((last+1)*30-now.Unix()) * time.Second)
		}
		return auth.TOTPCode(secret, e.Clock.Now())
	}
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
