package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/payportal/portal/internal/app"
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

	ln, err := net.Listen("tcp", cfg.ListenAddr)
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
	fmt.Fprintf(e.stdout, "Portal listening on %s\n", cfg.PublicURL)
	log.Info("portal started", "addr", ln.Addr().String(), "env", cfg.Env)

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// Finish in-flight requests, then stop.
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func (e env) printAdmin(email, password string) {
	if email == "" {
		email = "admin@example.com"
	}
	fmt.Fprintf(e.stdout, "\nCreated the first admin user:\n  e-mail:   %s\n", email)
	if password != "" {
		fmt.Fprintf(e.stdout, "  password: %s\n  (shown only this once; you will be asked to change it)\n\n", password)
	} else {
		fmt.Fprintf(e.stdout, "  password: the one in PORTAL_ADMIN_PASSWORD\n\n")
	}
}
