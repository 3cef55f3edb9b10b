// Package sandbox is a stand-in for the upstream account application API
// (area A of the specification): the API itself, an S3-like object store
// for presigned uploads, the merchant pages behind application links,
// status webhooks, fault injection and admin controls. It shares no code
// with the portal. README.md in this folder lists every choice made where
// the specification is silent.
package accounts

import (
	crand "crypto/rand"
	"encoding/binary"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// Server is one sandbox. Its state lives in memory, file content on disk.
// All methods are safe for concurrent use.
type Server struct {
	opts      Options
	log       *slog.Logger
	hooks     *webhooks
	views     *views
	fields    []fieldSpec
	objectDir string
	removeDir bool // the object folder is a temporary one of ours

	mu           sync.Mutex
	publicURL    string
	apps         map[string]*application
	order        []string
	byExternal   map[string]string
	tokens       map[string]time.Time // token issued by /auth → expiry
	tokensIssued int
	faults       Faults
	compat       Compat
	scripted     []int // statuses for the next API requests; 0 drops
	rng          *rand.Rand
	apiRequests  int
}

// New builds a sandbox from opts. Call Close when done with it.
func New(opts Options) (*Server, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Server{
		opts: opts, log: opts.Logger, fields: catalog(),
		publicURL:  strings.TrimSuffix(opts.PublicBaseURL, "/"),
		apps:       map[string]*application{},
		byExternal: map[string]string{},
		tokens:     map[string]time.Time{},
		faults:     opts.Faults,
		compat:     opts.Compat,
	}
	if len(s.opts.SigningKey) == 0 {
		s.opts.SigningKey = make([]byte, 32)
		_, _ = crand.Read(s.opts.SigningKey)
	}
	seed := opts.Seed
	if seed == 0 {
		var b [8]byte
		_, _ = crand.Read(b[:])
		seed = binary.LittleEndian.Uint64(b[:])
	}
	s.rng = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	if s.views, err = parseViews(); err != nil {
		return nil, err
	}
	if err := s.openObjectDir(); err != nil {
		return nil, err
	}
	if err := s.load(); err != nil {
		return nil, err
	}
	s.hooks = newWebhooks(opts, s.log)
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
// and links are built, for when it is known only after listening.
func (s *Server) SetPublicBaseURL(u string) error {
	if err := checkBaseURL(u); err != nil {
		return fmt.Errorf("sandbox: public base URL: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.publicURL = strings.TrimSuffix(u, "/")
	return nil
}

// baseURLLocked returns the public base URL or, when none is set, the
// scheme and host the request came to. The caller holds s.mu.
func (s *Server) baseURLLocked(r *http.Request) string {
	if s.publicURL != "" {
		return s.publicURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// Close stops webhook deliveries in flight and removes the object folder
// when it was a temporary one.
func (s *Server) Close() error {
	s.hooks.close()
	if s.removeDir {
		return os.RemoveAll(s.objectDir)
	}
	return nil
}

// Handler returns the sandbox's routes. Reading it gives the site map.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	api := s.opts.BasePath

	// Area A API: bearer token except /auth; faults apply.
	mux.Handle("POST "+api+"/auth", s.apiRoute(s.handleAuth, false))
	mux.Handle("POST "+api+"/application/start", s.apiRoute(s.handleStart, true))
	mux.Handle("PATCH "+api+"/application/{applicationId}", s.apiRoute(s.handlePatch, true))
	mux.Handle("POST "+api+"/application/{applicationId}/file", s.apiRoute(s.handleCreateFile, true))
	mux.Handle("GET "+api+"/application/{applicationId}/file/{fileId}", s.apiRoute(s.handleGetFile, true))
	mux.Handle("GET "+api+"/application/{applicationId}/link", s.apiRoute(s.handleLink, true))
	mux.Handle("POST "+api+"/application/{applicationId}/link", s.apiRoute(s.handleLink, true))

	// Object store: presigned PUT only; faults apply.
	mux.Handle("PUT "+storePrefix+"{applicationId}/{fileId}", s.storeFaults(http.HandlerFunc(s.handlePutObject)))

	// Merchant pages behind the application link: no login, the link is the key.
	mux.HandleFunc("GET "+pagePrefix+"{applicationId}", s.handleDetailsPage)
	mux.HandleFunc("POST "+pagePrefix+"{applicationId}", s.sameOrigin(s.handleDetailsSubmit))
	mux.HandleFunc("GET "+pagePrefix+"{applicationId}/terms", s.handleTermsPage)
	mux.HandleFunc("POST "+pagePrefix+"{applicationId}/terms", s.sameOrigin(s.handleTermsSubmit))
	mux.HandleFunc("GET "+pagePrefix+"{applicationId}/done", s.handleDonePage)
	mux.HandleFunc("GET "+stylesheetPath, s.handleStylesheet)

	// Admin controls: admin token on every route.
	mux.HandleFunc("GET /_sandbox/admin", s.admin(s.handleAdminPage))
	mux.HandleFunc("POST /_sandbox/admin/applications/{applicationId}/status", s.admin(s.sameOrigin(s.handleAdminStatusForm)))
	mux.HandleFunc("POST /_sandbox/admin/faults", s.admin(s.sameOrigin(s.handleAdminFaultsForm)))
	mux.HandleFunc("GET /_sandbox/admin/api/applications", s.admin(s.handleAdminListJSON))
	mux.HandleFunc("GET /_sandbox/admin/api/applications/{applicationId}", s.admin(s.handleAdminGetJSON))
	mux.HandleFunc("POST /_sandbox/admin/api/applications/{applicationId}/status", s.admin(s.handleAdminStatusJSON))
	mux.HandleFunc("GET /_sandbox/admin/api/faults", s.admin(s.handleAdminFaultsGetJSON))
	mux.HandleFunc("PUT /_sandbox/admin/api/faults", s.admin(s.handleAdminFaultsPutJSON))
	mux.HandleFunc("POST /_sandbox/admin/api/clock/advance", s.admin(s.handleAdminClockJSON))

	return s.logRequests(s.saveAfterChanges(mux))
}

// saveAfterChanges rewrites the state file after every request that can
// change state (all but GET and HEAD; opening a link with GET can too, so
// merchant pages save as well).
func (s *Server) saveAfterChanges(next http.Handler) http.Handler {
	if s.opts.StateFile == "" {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if r.Method != http.MethodGet || strings.HasPrefix(r.URL.Path, pagePrefix) {
				s.mu.Lock()
				s.saveLocked()
				s.mu.Unlock()
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// logRequests writes one line per request: method, path (never the query,
// which holds URL signatures), status and duration.
func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		defer func() {
			s.log.Info("sandbox request", "method", r.Method, "path", r.URL.Path,
				"status", rec.status, "duration", time.Since(start))
		}()
		next.ServeHTTP(rec, r)
	})
}

// statusRecorder remembers the status an answer was written with.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
