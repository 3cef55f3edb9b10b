// Package web assembles the portal's HTTP surface: middleware, the route table,
// error handling, static assets and operational endpoints.
package web

import (
	"log/slog"
	"net/http"

	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/payportal/portal/internal/apikeys"
	"github.com/payportal/portal/internal/auth"
	"github.com/payportal/portal/internal/config"
	"github.com/payportal/portal/internal/dashboard"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/documents"
	"github.com/payportal/portal/internal/handoff"
	"github.com/payportal/portal/internal/imports"
	"github.com/payportal/portal/internal/insights"
	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/merchants"
	"github.com/payportal/portal/internal/partnerapi"
	"github.com/payportal/portal/internal/payments"
	"github.com/payportal/portal/internal/pricing"
	"github.com/payportal/portal/internal/reminders"
	"github.com/payportal/portal/internal/submission"
	"github.com/payportal/portal/internal/terminals"
	"github.com/payportal/portal/internal/view"
	"github.com/payportal/portal/internal/webhooks"
	"github.com/payportal/portal/internal/workspace"
)

// Deps is everything the HTTP surface needs, built by the caller.
type Deps struct {
	Config   *config.Config
	DB       *database.DB
	Log      *slog.Logger
	Sessions *scs.SessionManager
	Views    *view.Renderer
	Static   *Static
	Registry *prometheus.Registry

	AuthService *auth.Service
	Auth        *auth.Handlers
	Pricing     *pricing.Handlers
	Outbox      *mail.Handlers
	Webhook     *handoff.WebhookHandler
	Tracking    *handoff.OpenTracker
	Handoff     *handoff.Handlers
	Documents   *documents.Handlers
	Dashboard   *dashboard.Handlers
	// Applications serves the application workspace.
	Applications *workspace.Handlers
	Submissions  *submission.Handlers
	// Reminders serves an application's reminders and the admins' settings.
	Reminders *reminders.Handlers
	// Imports serves the import of drafts from CSV files.
	Imports *imports.Handlers
	// Insights serves the onboarding funnel.
	Insights *insights.Handlers
	// Payments serves a merchant's virtual terminal, ledger and customers.
	Payments *payments.Handlers
	// Merchants serves the boarded merchants.
	Merchants *merchants.Handlers
	// Terminals serves a merchant's card terminals and their transactions.
	Terminals *terminals.Handlers

	// APIKeys are the admins' pages of the partner API's keys; APIKeyService
	// authenticates the API's requests.
	APIKeys       *apikeys.Handlers
	APIKeyService *apikeys.Service
	// API serves /api/v1; APIGuard keeps its rate limits and idempotency keys;
	// APIDocs serves its OpenAPI document and reference pages.
	API      *partnerapi.Handlers
	APIGuard *partnerapi.Guard
	APIDocs  *partnerapi.Docs
	// WebhookEndpoints serves the admins' pages of the partner webhooks.
	WebhookEndpoints *webhooks.Handlers
}

// New returns the portal's HTTP handler.
func New(d Deps) *echo.Echo {
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = errorHandler(d.Views, d.Log)
	e.IPExtractor = clientAddress(d.Config.TrustedProxies)

	e.Use(middleware.RequestIDWithConfig(middleware.RequestIDConfig{}))
	e.Use(auditClientAddress)
	e.Use(observe(d.Log, newMetrics(d.Registry)))
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{
		LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
			d.Log.Error("panic", "request_id", c.Response().Header().Get(echo.HeaderXRequestID), "err", err, "stack", string(stack))
			return err
		},
	}))
	e.Use(securityHeaders(d.Config.SecureCookies()))

	routes(e, d)
	return e
}

// sessionStack is the middleware of every page route: sessions, the signed-in
// user and CSRF protection.
func sessionStack(d Deps) []echo.MiddlewareFunc {
	return []echo.MiddlewareFunc{
		auth.SessionMiddleware(d.Sessions, d.Config.SecureCookies(), fromTrustedProxy(d.Config.TrustedProxies)),
		d.AuthService.LoadUser(d.Sessions),
		formBody,
		csrfProtect(d.Sessions, d.Config.Storage.MaxUploadBytes+1<<20, documents.TooLargeRedirect),
	}
}

// notFound is the catch-all so that unknown paths get the portal's 404 page
// with the user's navigation.
func notFound(c echo.Context) error { return echo.NewHTTPError(http.StatusNotFound) }
