package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/payportal/portal/internal/app"
	"github.com/payportal/portal/internal/pricing"
)

func (e env) serve(ctx context.Context) error {
	cfg, log, db, err := e.load(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	// Several instances may start at once; the advisory lock inside MigrateUp
	// lets exactly one apply each migration.
	if err := db.MigrateUp(ctx, log); err != nil {
		return err
	}
	// The embedded default: the sandbox upstream in this process, on its own port.
	if cfg.Upstream.Mode == "sandbox" {
		sb, err := app.StartEmbeddedSandbox(cfg, log)
		if err != nil {
			return err
		}
		defer sb.Close(context.WithoutCancel(ctx))
		fmt.Fprintf(e.stdout, "Sandbox upstream on %s (admin: %s/_sandbox/admin, user admin, password %s)\n",
			sb.URL, sb.URL, cfg.Sandbox.AdminToken)
	}
	a, err := app.Build(ctx, cfg, db, log, app.Options{})
	if err != nil {
		return err
	}
	created, password, err := a.Auth.EnsureAdmin(ctx, cfg.AdminEmail, cfg.AdminPassword)
	if err != nil {
		return err
	}
	if created {
		e.printAdmin(cfg.AdminEmail, password)
	}
	if cfg.SeedExamples {
		// Only ever fills an empty table, so it is safe on every start.
		n, err := pricing.SeedExamples(ctx, db.Gorm)
		if err != nil {
			return err
		}
		if n > 0 {
			log.Info("example pricing models added", "count", n)
		}
	}
	// In sandbox mode the sandbox is told every current pricing model's code,
	// as the operator issues them at enrollment (a no-op otherwise).
	if err := a.Pricing.IssueCurrentCodes(ctx); err != nil {
		return err
	}

	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", cfg.ListenAddr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           a.Handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       5 * time.Minute, // uploads of large documents
		WriteTimeout:      5 * time.Minute,
		IdleTimeout:       2 * time.Minute,
	}
	// Background jobs run beside the web server (unless PORTAL_RUN_WORKERS=false).
	if err := a.Jobs.Start(ctx); err != nil {
		_ = ln.Close()
		return err
	}
	// The follower of terminal transactions runs with the workers: it
	// resumes, with their original budget, every launch still in flight.
	if cfg.Workers.Run {
		a.Terminals.Start(ctx)
	}
	fmt.Fprintf(e.stdout, "Portal listening on %s\n", cfg.PublicURL)
	if created {
		fmt.Fprintf(e.stdout, "Sign in at %s/login with the admin e-mail and password printed above.\n", cfg.PublicURL)
	} else {
		fmt.Fprintf(e.stdout, "Sign in at %s/login (the first admin's password was printed at the first start;\n"+
			"set PORTAL_ADMIN_EMAIL and PORTAL_ADMIN_PASSWORD before the first start to choose them).\n", cfg.PublicURL)
	}
	log.Info("portal started", "addr", ln.Addr().String(), "env", cfg.Env)

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	var serveErr error
	select {
	case serveErr = <-errc:
	case <-ctx.Done():
	}
	// Finish in-flight requests and running jobs, together, then stop. Jobs
	// still running after PORTAL_WORKER_SHUTDOWN_TIMEOUT are cancelled and
	// retried later, by this or another instance.
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	jobsDone := make(chan error, 1)
	go func() { jobsDone <- errors.Join(a.Jobs.Stop(shutdownCtx), a.Terminals.Stop(shutdownCtx)) }()
	if serveErr == nil {
		if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
			serveErr = err
		}
	}
	return errors.Join(serveErr, <-jobsDone)
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
