package web

import (
	"context"
	"crypto/subtle"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/database"
)

// healthz answers as long as the process serves requests.
func healthz(c echo.Context) error { return c.String(http.StatusOK, "ok\n") }

// readyz answers 200 only when the database is reachable and its schema is
// current, so a load balancer sends no traffic to an instance that cannot serve.
func readyz(db *database.DB) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
		defer cancel()
		if err := db.Pool.Ping(ctx); err != nil {
			return c.String(http.StatusServiceUnavailable, "database unreachable\n")
		}
		current, err := db.MigrationsCurrent(ctx)
		if err != nil || !current {
			return c.String(http.StatusServiceUnavailable, "migrations pending\n")
		}
		return c.String(http.StatusOK, "ready\n")
	}
}

// metricsGuard lets /metrics answer only a scraper holding the configured
// bearer token; with no token configured the endpoint is open, for local use.
func metricsGuard(token string, next echo.HandlerFunc) echo.HandlerFunc {
	if token == "" {
		return next
	}
	want := []byte("Bearer " + token)
	return func(c echo.Context) error {
		if subtle.ConstantTimeCompare([]byte(c.Request().Header.Get("Authorization")), want) != 1 {
			c.Response().Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
			return c.String(http.StatusUnauthorized, "unauthorized\n")
		}
		return next(c)
	}
}
