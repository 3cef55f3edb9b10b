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
}

// Option adjusts the environment before the portal is built.
type Option func(*settings)

type settings struct {
	vars     map[string]string
	throttle *auth.ThrottleLimits
}

// WithEnv sets a PORTAL_* variable for the portal under test.
func WithEnv(name, value string) Option { return func(s *settings) { s.vars[name] = value } }

// WithThrottle overrides the sign-in throttling limits.
func WithThrottle(l auth.ThrottleLimits) Option { return func(s *settings) { s.throttle = &l } }

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
	cfg, err := config.Load(func(k string) (string, bool) { v, ok := s.vars[k]; return v, ok })
	if err != nil {
		t.Fatalf("test config: %v", err)
	}
	clock := NewClock(time.Now())
	a, err := app.Build(context.Background(), cfg, db, slog.New(slog.DiscardHandler), app.Options{Now: clock.Now, Throttle: s.throttle})
	if err != nil {
		t.Fatalf("build portal: %v", err)
	}
	srv := httptest.NewServer(a.Handler)
	t.Cleanup(srv.Close)
	return &Env{URL: srv.URL, App: a, DB: db, DBURL: dbURL, Clock: clock, Config: cfg}
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
