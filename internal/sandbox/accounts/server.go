// Package accounts is area A of the sandbox: a stand-in for the upstream
// account application API. It serves the API itself, an S3-like object
// store for presigned uploads, the merchant pages behind application links
// (with the simulated bank-link dialog), automatic underwriting, status
// webhooks and its admin page. It shares no code with the portal; its
// state lives in the sandbox's bbolt store. ../README.md lists every choice
// made where the specification is silent.
package accounts

import (
	"context"
	crand "crypto/rand"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// Area is the name of this area in the fault injector and the admin paths.
const Area = "accounts"

// Server is the account application area. All methods are safe for
// concurrent use.
type Server struct {
	opts      Options
	env       kit.Env
	log       *slog.Logger
	db        *bolt.DB
	pages     *kit.Pages // merchant pages
	admin     *kit.Pages // admin page
	fields    []fieldSpec
	alarm     *kit.Alarm
	hooks     *webhooks
	objectDir string
	removeDir bool // the object folder is a temporary one of ours

	settingsMu  sync.Mutex
	urlLifetime time.Duration
	compat      Compat

	own *standalone // set when New built the environment itself

	closeOnce sync.Once
	closeErr  error
}

// standalone is the environment New builds for an area served alone.
type standalone struct {
	store  *kit.Store
	mu     sync.Mutex
	public string
}

// New builds the area on its own, with its own store (Options.StateFile),
// clock, faults and admin guard: for Go tests of packages that need only
// area A. Unlike the sandbox server, it accepts any pricing code unless
// PricingCodes is set, as the area did before codes were issued. The
// `portal sandbox` command and the embedded sandbox use the sandbox server
// (package sandbox), which builds the area with NewArea.
func New(opts Options) (*Server, error) {
	store, err := kit.OpenStore(opts.StateFile)
	if err != nil {
		return nil, err
	}
	faults, err := kit.NewInjector(opts.Faults.Shared(), opts.Seed)
	if err != nil {
		_ = store.Close()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	own := &standalone{store: store, public: strings.TrimSuffix(opts.PublicBaseURL, "/")}
	clock := opts.Clock
	if clock == nil {
		clock = kit.SystemClock{}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	env := kit.Env{Clock: clock, Faults: faults, Store: store, Log: log, Admin: kit.AdminGuard(opts.AdminToken),
		PublicURL: func() string { own.mu.Lock(); defer own.mu.Unlock(); return own.public }}
	if len(opts.PricingCodes) == 0 {
		opts.AnyPricingCode = true
	}
	s, err := NewArea(env, opts)
	if err != nil {
		_ = store.Close()
		return nil, err
	}
	s.own = own
	return s, nil
}

// NewArea builds the area on the sandbox server's environment: its clock,
// fault injector (area name "accounts"), store and admin guard. Call Close
// when done with it; the store stays open.
func NewArea(env kit.Env, opts Options) (*Server, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if env.Log == nil {
		env.Log = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, env: env, log: env.Log, db: env.Store.DB, fields: catalog(),
		urlLifetime: opts.Faults.URLLifetime, compat: opts.Compat}
	if len(s.opts.SigningKey) == 0 {
		s.opts.SigningKey = make([]byte, 32)
		_, _ = crand.Read(s.opts.SigningKey)
	}
	if s.pages, s.admin, err = parsePages(); err != nil {
		return nil, err
	}
	if err := env.Store.Buckets(allBuckets...); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	if err := s.openObjectDir(); err != nil {
		return nil, err
	}
	if err := s.importLegacyState(); err != nil {
		return nil, err
	}
	if err := s.issueConfiguredCodes(); err != nil {
		return nil, err
	}
	s.hooks = newWebhooks(s)
	s.alarm = kit.NewAlarm(env.Clock, s.runDue)
	if err := s.rearm(); err != nil {
		s.alarm.Close()
		return nil, err
	}
	return s, nil
}

// openObjectDir creates the object store's folder.
func (s *Server) openObjectDir() error {
	if s.opts.ObjectDir == "" {
		dir, err := os.MkdirTemp("", "portal-sandbox-objects-")
		if err != nil {
			return fmt.Errorf("sandbox: object folder: %w", err)
		}
		s.objectDir, s.removeDir = dir, true
		return nil
	}
	if err := os.MkdirAll(s.opts.ObjectDir, 0o750); err != nil {
		return fmt.Errorf("sandbox: object folder: %w", err)
	}
	s.objectDir = s.opts.ObjectDir
	return nil
}

// SetPublicBaseURL sets the scheme://host[:port] on which presigned URLs
// and links are built, for an area built by New, when it is known only
// after listening. The sandbox server has its own.
func (s *Server) SetPublicBaseURL(u string) error {
	if err := checkBaseURL(u); err != nil {
		return fmt.Errorf("sandbox: public base URL: %w", err)
	}
	if s.own == nil {
		return fmt.Errorf("sandbox: the sandbox server sets the public base URL of its areas")
	}
	s.own.mu.Lock()
	defer s.own.mu.Unlock()
	s.own.public = strings.TrimSuffix(u, "/")
	return nil
}

// publicURL returns the configured public base URL, or "".
func (s *Server) publicURL() string {
	if s.env.PublicURL == nil {
		return ""
	}
	return strings.TrimSuffix(s.env.PublicURL(), "/")
}

// Close stops the alarm and the webhook deliveries in flight, and removes
// the object folder when it was a temporary one (and the store when New
// made it).
func (s *Server) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.close() })
	return s.closeErr
}

func (s *Server) close() error {
	s.alarm.Close()
	s.hooks.close()
	var err error
	if s.removeDir {
		err = os.RemoveAll(s.objectDir)
	}
	if s.own != nil {
		if cerr := s.own.store.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// BasePath is the API's path prefix, such as "/v2".
func (s *Server) BasePath() string { return s.opts.BasePath }

// Handler serves the area alone (New): its routes, the shared stylesheet,
// the security headers and a request log line. The sandbox server mounts
// the area on its own mux instead.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	s.Mount(mux)
	mux.HandleFunc("GET "+kit.StylesheetPath, kit.ServeStylesheet)
	mux.HandleFunc("GET "+kit.ScriptPath, kit.ServeScript)
	return kit.SecurityHeaders(logRequests(s.log, mux))
}

// logRequests writes one line per request: method, path (never the query,
// which holds URL signatures), status and duration.
func logRequests(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &kit.StatusRecorder{ResponseWriter: w, Status: http.StatusOK}
		defer func() {
			log.Info("sandbox request", "method", r.Method, "path", r.URL.Path,
				"status", rec.Status, "duration", time.Since(start))
		}()
		next.ServeHTTP(rec, r)
	})
}

// setStatus moves a to st in the change c, records who moved it, queues the
// webhook and, for boarded, the announcement.
func (s *Server) setStatus(c *change, a *appRecord, st Status, by string) error {
	if a.Status == st {
		return nil
	}
	a.Status = st
	a.Updated = c.now
	a.History = append(a.History, StatusChange{Status: st, At: c.now, By: by})
	if st == StatusBoarded && !a.Announced {
		a.Announced = true
		c.boarded = append(c.boarded, kit.Merchant{ApplicationID: a.ID, ExternalApplicationID: a.ExternalID, Name: a.name()})
	}
	return s.hooks.enqueue(c, a.ID, st)
}

// announce hands a boarded merchant to the OnBoarded hook.
func (s *Server) announce(m kit.Merchant) {
	if s.opts.OnBoarded == nil {
		return
	}
	s.opts.OnBoarded(context.Background(), m)
}
