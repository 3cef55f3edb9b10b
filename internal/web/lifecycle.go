package web

import (
	"net/http"
	"sync/atomic"
)

// Lifecycle answers in front of the portal for the whole life of its process.
// The listener opens first: until Ready, /healthz answers 200, /readyz 503
// "starting" and every other path 503 with Retry-After, so a balancer sends
// nothing to an instance still migrating or wiring itself. After Drain (on
// SIGTERM), /readyz answers 503 "draining" while every other request is still
// served, so the balancer takes the instance out of rotation before its
// listener closes and no client meets a closed port. Responses while draining
// close their connection after them, so a client keeping connections open
// moves on; idle connections are left open until the listener closes, since
// closing one under a request the balancer is just sending would fail it.
type Lifecycle struct {
	app      atomic.Pointer[http.Handler]
	draining atomic.Bool
}

// NewLifecycle returns a lifecycle in its starting phase.
func NewLifecycle() *Lifecycle { return &Lifecycle{} }

// Ready hands every request to app from now on.
func (l *Lifecycle) Ready(app http.Handler) { l.app.Store(&app) }

// Drain makes /readyz answer 503 "draining" from now on; other requests are
// still served.
func (l *Lifecycle) Drain() { l.draining.Store(true) }

// ServeHTTP answers the probes for the phase and hands the rest to the app.
func (l *Lifecycle) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	app := l.app.Load()
	if l.draining.Load() {
		w.Header().Set("Connection", "close")
	}
	switch {
	case r.URL.Path == "/readyz" && l.draining.Load():
		unavailable(w, "draining\n")
	case app != nil:
		(*app).ServeHTTP(w, r)
	case r.URL.Path == "/healthz":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	case r.URL.Path == "/readyz":
		unavailable(w, "starting\n")
	default:
		w.Header().Set("Retry-After", "1")
		unavailable(w, "The portal is starting. Try again in a moment.\n")
	}
}

// unavailable answers 503 with a short text no cache keeps.
func unavailable(w http.ResponseWriter, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write([]byte(text))
}
