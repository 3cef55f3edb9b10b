// Package sandbox is the composing server of the upstream sandbox: one
// mux, one clock, one fault injector and one bbolt store for every area it
// serves (area A, the account application API, in package accounts; areas
// B and C, the direct payment and terminal cloud APIs, plug in beside it),
// one admin overview, the security headers on every answer and one log line
// per request. README.md in this folder documents it all.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/payportal/portal/internal/sandbox/accounts"
	"github.com/payportal/portal/internal/sandbox/kit"
	"github.com/payportal/portal/internal/sandbox/payments"
	"github.com/payportal/portal/internal/sandbox/terminals"
)

// Options configures the sandbox server. The environment variables are
// read by the portal's configuration (internal/config) for `portal sandbox`
// and the embedded sandbox of `make run`.
type Options struct {
	// PublicBaseURL is the scheme://host[:port] at which clients and
	// browsers reach the sandbox; links and presigned URLs are built on it.
	// Empty: set it with SetPublicBaseURL once listening; until then the
	// scheme and Host of each request are used. PORTAL_SANDBOX_PUBLIC_URL.
	PublicBaseURL string
	// StateFile is the bbolt file of every area's state
	// ($PORTAL_SANDBOX_DATA_DIR/state.db); empty keeps state in a temporary
	// file removed by Close.
	StateFile string
	// AdminToken guards /_sandbox/admin (bearer, or basic auth with the
	// token as password); empty turns the admin surface off.
	// PORTAL_SANDBOX_ADMIN_TOKEN (and _FILE).
	AdminToken string
	// Clock tells the time to every area: nil is the wall clock; a
	// *kit.ManualClock moves only through Advance and the admin clock
	// control. PORTAL_SANDBOX_CLOCK=manual.
	Clock kit.Clock
	// Faults are the faults injected into every area's API from the start.
	// PORTAL_SANDBOX_LATENCY, _LATENCY_JITTER, _ERROR_RATE, _DROP_RATE,
	// _RETRY_AFTER.
	Faults kit.Faults
	// Seed makes the fault dice repeatable; 0 picks a random seed.
	// PORTAL_SANDBOX_SEED.
	Seed uint64
	// Logger receives one line per request and the areas' own lines.
	// Default: discard.
	Logger *slog.Logger

	// Accounts configures area A, the account application API. Its
	// OnBoarded hook is the server's: leave it nil.
	Accounts accounts.Options

	// PaymentsOptions and TerminalsOptions configure areas B and C.
	PaymentsOptions  payments.Options
	TerminalsOptions terminals.Options
	// Payments and Terminals build areas B and C on the shared environment;
	// nil builds packages payments and terminals with the options above.
	// Tests replace them, or leave both areas out with
	// WithoutPaymentsAndTerminals.
	WithoutPaymentsAndTerminals bool
	Payments                    func(env kit.Env) (PaymentsArea, error)
	Terminals                   func(env kit.Env) (TerminalsArea, error)
}

// Server is the sandbox: every area behind one handler.
type Server struct {
	opts    Options
	env     kit.Env
	store   *kit.Store
	log     *slog.Logger
	pages   *kit.Pages
	clockMu sync.Mutex // orders saves of the manual clock's reading
	// provisionMu makes provisioning one merchant at a time, so boarding
	// and the credentials route never provision a merchant twice.
	provisionMu sync.Mutex

	publicMu sync.RWMutex
	public   string

	accounts  *accounts.Server
	payments  PaymentsArea
	terminals TerminalsArea
	cancel    func() // stops saving the manual clock
	mux       *http.ServeMux

	closeOnce sync.Once
	closeErr  error
}

// New builds the server and its areas. Call Close when done.
func New(opts Options) (*Server, error) {
	if opts.Clock == nil {
		opts.Clock = kit.SystemClock{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.PublicBaseURL != "" {
		if err := checkBaseURL(opts.PublicBaseURL); err != nil {
			return nil, fmt.Errorf("sandbox: public base URL: %w", err)
		}
	}
	faults, err := kit.NewInjector(opts.Faults, opts.Seed)
	if err != nil {
		return nil, fmt.Errorf("sandbox: faults: %w", err)
	}
	store, err := kit.OpenStore(opts.StateFile)
	if err != nil {
		return nil, err
	}
	s := &Server{opts: opts, store: store, log: opts.Logger, public: strings.TrimSuffix(opts.PublicBaseURL, "/")}
	s.env = kit.Env{Clock: opts.Clock, Faults: faults, Store: store, Log: opts.Logger,
		Admin: kit.AdminGuard(opts.AdminToken), PublicURL: s.publicURL}
	if err := s.build(); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

// build restores the manual clock, builds the areas and the routes.
func (s *Server) build() error {
	if err := s.store.Buckets(bRoot, bMerchants); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if err := s.restoreClock(); err != nil {
		return err
	}
	var err error
	if s.pages, err = parseOverview(); err != nil {
		return err
	}
	ao := s.opts.Accounts
	ao.OnBoarded = s.boarded
	if s.accounts, err = accounts.NewArea(s.env, ao); err != nil {
		return err
	}
	if err := s.plugAreas(); err != nil {
		return err
	}
	s.mux = http.NewServeMux()
	s.routes(s.mux)
	return nil
}

// Accounts returns area A, for its Go helpers (tests, the portal's
// sandbox mode).
func (s *Server) Accounts() *accounts.Server { return s.accounts }

// Clock returns the clock every area reads.
func (s *Server) Clock() kit.Clock { return s.env.Clock }

// Faults returns the fault injector of every area.
func (s *Server) Faults() *kit.Injector { return s.env.Faults }

// AccountsBasePath is area A's API path prefix, such as "/v2".
func (s *Server) AccountsBasePath() string { return s.accounts.BasePath() }

// SetPublicBaseURL sets the scheme://host[:port] on which links and
// presigned URLs are built, for when it is known only after listening.
func (s *Server) SetPublicBaseURL(u string) error {
	if err := checkBaseURL(u); err != nil {
		return fmt.Errorf("sandbox: public base URL: %w", err)
	}
	s.publicMu.Lock()
	defer s.publicMu.Unlock()
	s.public = strings.TrimSuffix(u, "/")
	return nil
}

func (s *Server) publicURL() string {
	s.publicMu.RLock()
	defer s.publicMu.RUnlock()
	return s.public
}

// Handler returns every area's routes and the server's own, behind the
// security headers and the request log.
func (s *Server) Handler() http.Handler {
	return kit.SecurityHeaders(s.logRequests(s.mux))
}

// logRequests writes one line per request: method, path (never the query,
// which holds URL signatures), status and duration.
func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &kit.StatusRecorder{ResponseWriter: w, Status: http.StatusOK}
		defer func() {
			s.log.Info("sandbox request", "method", r.Method, "path", r.URL.Path,
				"status", rec.Status, "duration", time.Since(start))
		}()
		next.ServeHTTP(rec, r)
	})
}

// Close closes every area, then the store.
func (s *Server) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.close() })
	return s.closeErr
}

func (s *Server) close() error {
	var errs []error
	if s.cancel != nil {
		s.cancel()
	}
	if s.terminals != nil {
		errs = append(errs, s.terminals.Close())
	}
	if s.payments != nil {
		errs = append(errs, s.payments.Close())
	}
	if s.accounts != nil {
		errs = append(errs, s.accounts.Close())
	}
	errs = append(errs, s.store.Close())
	return errors.Join(errs...)
}

// checkBaseURL accepts an absolute http or https URL.
func checkBaseURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an absolute http(s) URL", s)
	}
	return nil
}

// withTimeout bounds the work of a hook that runs outside a request.
func withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, 30*time.Second)
}

// AccountsOnly returns the options of a server of area A alone from the
// area's own options, as New in package accounts takes them: the settings
// every area shares (faults but the URL lifetime, clock, seed, admin
// token, public URL, state file, logger) become the server's. Like
// accounts.New, it accepts any pricing code unless PricingCodes is set.
func AccountsOnly(o accounts.Options) Options {
	opts := Options{PublicBaseURL: o.PublicBaseURL, StateFile: o.StateFile, AdminToken: o.AdminToken,
		Clock: o.Clock, Faults: o.Faults.Shared(), Seed: o.Seed, Logger: o.Logger, Accounts: o}
	if len(o.PricingCodes) == 0 {
		opts.Accounts.AnyPricingCode = true
	}
	return opts
}
