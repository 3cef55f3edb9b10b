package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/payportal/portal/internal/app"
	"github.com/payportal/portal/internal/config"
	"github.com/payportal/portal/internal/web"
)

// shutdownTimeout bounds the wait for in-flight requests once the listener has
// closed, and for running jobs.
const shutdownTimeout = 30 * time.Second

// serve runs the portal until ctx ends (SIGTERM), then drains and stops. The
// listener opens first, so an address in use fails the start at once and a
// balancer's health check is answered ("starting") while the portal migrates
// and wires itself; /readyz says ready only once everything has started.
func (e env) serve(ctx context.Context) error {
	cfg, err := config.Load(e.lookup)
	if err != nil {
		return err
	}
	log := app.NewLogger(e.stderr, cfg.Env, cfg.LogLevel)
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", cfg.ListenAddr)
	if err != nil {
		return err
	}
	gate := web.NewLifecycle()
	srv := &http.Server{
		Handler:           gate,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       5 * time.Minute, // uploads of large documents
		WriteTimeout:      5 * time.Minute,
		IdleTimeout:       2 * time.Minute,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	log.Info("listening; starting", "addr", ln.Addr().String())

	p, err := e.start(ctx, cfg, log)
	if err != nil {
		_ = srv.Close()
		return err
	}
	defer p.close(context.WithoutCancel(ctx))
	gate.Ready(p.app.Handler)
	e.printStarted(cfg, p.adminCreated)
	// How long each step of the start took ("open", "migrate", "sandbox", "build",
	// "prepare", "jobs"), to tell where a slow start spends its time.
	log.Info("portal started", append([]any{"addr", ln.Addr().String(), "env", cfg.Env, "instance", cfg.Instance}, p.took.args...)...)

	var serveErr error
	select {
	case serveErr = <-errc:
	case <-ctx.Done():
	}
	return errors.Join(serveErr, drain(cfg, log, gate, srv, p.app, serveErr == nil))
}

// drain stops the instance without failing a request: /readyz answers
// "draining" for PORTAL_DRAIN_PERIOD while requests are still served and the
// job workers stop taking jobs, then the listener closes, in-flight requests
// finish, and running jobs finish or are handed back (retried by another
// instance).
func drain(cfg *config.Config, log *slog.Logger, gate *web.Lifecycle, srv *http.Server, a *app.App, listening bool) error {
	gate.Drain()
	log.Info("draining", "period", cfg.DrainPeriod)
	stopCtx, cancel := context.WithTimeout(context.Background(), cfg.DrainPeriod+shutdownTimeout)
	defer cancel()
	jobsDone := make(chan error, 1)
	go func() { jobsDone <- a.Jobs.Stop(stopCtx) }()
	if listening {
		time.Sleep(cfg.DrainPeriod) // the balancer's health checks see "draining" meanwhile
	}
	log.Info("shutting down")
	var err error
	if listening {
		shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		defer cancel()
		if err = srv.Shutdown(shutdownCtx); errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
	}
	// The follower hands its terminal transactions over once no request of
	// this instance can launch another.
	return errors.Join(err, a.Terminals.Stop(stopCtx), <-jobsDone)
}

func (e env) printStarted(cfg *config.Config, adminCreated bool) {
	fmt.Fprintf(e.stdout, "Portal listening on %s\n", cfg.PublicURL)
	if adminCreated {
		fmt.Fprintf(e.stdout, "Sign in at %s/login with the admin e-mail and password printed above.\n", cfg.PublicURL)
		return
	}
	fmt.Fprintf(e.stdout, "Sign in at %s/login (the first admin's password was printed at the first start;\n"+
		"set PORTAL_ADMIN_EMAIL and PORTAL_ADMIN_PASSWORD before the first start to choose them).\n", cfg.PublicURL)
}

func (e env) printAdmin(email, password string) {
	if email == "" {
		email = "admin@example.com"
	}
	fmt.Fprintf(e.stdout, "\nCreated the first admin user:\n  e-mail:   %s\n", email)
	if password != "" {
		fmt.Fprintf(e.stdout, "  password: %s\n  (shown only this once; you will be asked to change it)\n", password)
	} else {
		fmt.Fprintf(e.stdout, "  password: the one in PORTAL_ADMIN_PASSWORD\n")
	}
	fmt.Fprintf(e.stdout, "  Admins sign in in two steps: have an authenticator app ready (any TOTP app) to scan\n  the QR code shown at the first sign-in.\n\n")
}
