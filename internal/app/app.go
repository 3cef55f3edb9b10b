// Package app wires the portal together: it builds every dependency explicitly,
// in one place, and hands each one to the code that needs it.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/payportal/portal/assets"
	"github.com/payportal/portal/internal/auth"
	"github.com/payportal/portal/internal/config"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/view"
	"github.com/payportal/portal/internal/web"
	"github.com/payportal/portal/views"
)

// Options are the parts of the wiring that tests replace.
type Options struct {
	// Now is the clock of sign-in throttling and of the domain services.
	Now func() time.Time
	// Throttle overrides the sign-in throttling limits.
	Throttle *auth.ThrottleLimits
}

// App is the assembled portal.
type App struct {
	Config   *config.Config
	DB       *database.DB
	Log      *slog.Logger
	Sessions *scs.SessionManager
	Auth     *auth.Service
	Handler  *echo.Echo
}

// Build assembles the portal on an open, migrated database.
func Build(ctx context.Context, cfg *config.Config, db *database.DB, log *slog.Logger, opts Options) (*App, error) {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	limits := auth.DefaultThrottleLimits
	if opts.Throttle != nil {
		limits = *opts.Throttle
	}

	static, err := web.NewStatic(assets.FS)
	if err != nil {
		return nil, fmt.Errorf("assets: %w", err)
	}
	sessions := auth.NewSessionManager(db.Pool, cfg.SessionIdleTimeout, cfg.SessionLifetime)
	views, err := view.New(views.FS, viewFuncs(static), sessions, cfg.ResellerName)
	if err != nil {
		return nil, fmt.Errorf("templates: %w", err)
	}
	registry := prometheus.NewRegistry()
	registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))

	authService := auth.NewService(db.Gorm, limits, now, log)
	handler := web.New(web.Deps{
		Config:      cfg,
		DB:          db,
		Log:         log,
		Sessions:    sessions,
		Views:       views,
		Static:      static,
		Registry:    registry,
		AuthService: authService,
		Auth:        auth.NewHandlers(authService, sessions, views),
	})
	return &App{Config: cfg, DB: db, Log: log, Sessions: sessions, Auth: authService, Handler: handler}, nil
}
