package web

import (
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/payportal/portal/internal/auth"
	"github.com/payportal/portal/internal/models"
)

// routes is the portal's site map. Role checks are visible on each group.
func routes(e *echo.Echo, d Deps) {
	// Machine endpoints: no session, no CSRF.
	e.GET("/healthz", healthz)
	e.GET("/readyz", readyz(d.DB))
	e.GET("/metrics", metricsGuard(d.Config.MetricsToken, echo.WrapHandler(promhttp.HandlerFor(d.Registry, promhttp.HandlerOpts{}))))
	e.GET("/assets/*", d.Static.Serve)
	// The upstream's status webhooks: checked by the token in the body.
	e.POST("/webhooks/upstream", d.Webhook.Receive)
	// The merchant's e-mailed link: no sign-in, the unguessable token is the key.
	e.GET("/l/:token", d.Tracking.Follow)

	// Pages: sessions, the signed-in user and CSRF on every unsafe request.
	site := e.Group("", sessionStack(d)...)
	site.GET("/login", d.Auth.ShowLogin)
	site.POST("/login", d.Auth.Login)
	site.POST("/logout", d.Auth.Logout)
	// The second step of signing in: the code of an authenticator app, or
	// setting one up when the role requires it. The session's checked
	// password is the key.
	site.GET("/login/mfa", d.Auth.ShowSecondFactor)
	site.POST("/login/mfa", d.Auth.SecondFactor)
	site.GET("/login/mfa/setup", d.Auth.ShowMFASetup)
	site.POST("/login/mfa/setup", d.Auth.ConfirmMFASetup)
	// An invited user's one-time link to choose a password: the token is the key.
	site.GET("/invite/:token", d.Auth.ShowInvitation)
	site.POST("/invite/:token", d.Auth.AcceptInvitation)

	// Any signed-in user.
	signedIn := site.Group("", auth.RequireUser)
	signedIn.GET("/", d.Dashboard.List)
	signedIn.GET("/account/password", d.Auth.ShowChangePassword)
	signedIn.POST("/account/password", d.Auth.ChangePassword)
	signedIn.GET("/account/time-zone", d.Auth.ShowTimeZone)
	signedIn.POST("/account/time-zone", d.Auth.SaveTimeZone)
	signedIn.GET("/account/security", d.Auth.ShowSecurity)
	signedIn.GET("/account/security/setup", d.Auth.ShowMFASetup)
	signedIn.POST("/account/security/setup", d.Auth.ConfirmMFASetup)
	signedIn.POST("/account/security/recovery-codes", d.Auth.RegenerateRecoveryCodes)
	signedIn.POST("/account/security/turn-off", d.Auth.TurnOffMFA)

	// Applications: every handler loads the application through the store's
	// Visible or Editable, so another rep's application is 404 on every route. Reveal,
	// reassign and restore are admin actions; their role check comes after that
	// visibility check, for the same reason.
	signedIn.POST("/applications", d.Applications.Create)
	signedIn.GET("/applications/:id", d.Applications.Show)
	signedIn.POST("/applications/:id/sections/:section", d.Applications.SaveSection)
	signedIn.GET("/applications/:id/checklist", d.Applications.Checklist)
	signedIn.GET("/applications/:id/history", d.Applications.History)
	signedIn.POST("/applications/:id/delete", d.Applications.Delete)
	signedIn.POST("/applications/:id/reveal", d.Applications.Reveal)     // admins
	signedIn.POST("/applications/:id/reassign", d.Applications.Reassign) // admins
	signedIn.POST("/applications/:id/restore", d.Applications.Restore)   // admins
	// Submission: the push upstream, its live progress, the merchant's e-mail again.
	signedIn.POST("/applications/:id/submit", d.Submissions.Submit)
	signedIn.GET("/applications/:id/progress", d.Submissions.Progress)
	signedIn.POST("/applications/:id/handoff/resend", d.Handoff.ResendHandoff)
	// Reminders: what was sent about an application, and pausing them.
	signedIn.GET("/applications/:id/reminders", d.Reminders.Panel)
	signedIn.POST("/applications/:id/reminders/pause", d.Reminders.Pause)
	signedIn.POST("/applications/:id/reminders/resume", d.Reminders.Resume)

	// The onboarding funnel: admins see every application, a rep their own.
	signedIn.GET("/insights", d.Insights.Show)
	signedIn.GET("/insights.csv", d.Insights.CSV)

	// Importing drafts from a CSV file: a batch is its uploader's alone.
	signedIn.GET("/imports", d.Imports.Index)
	signedIn.GET("/imports/template.csv", d.Imports.Template)
	signedIn.POST("/imports", d.Imports.Upload)
	signedIn.GET("/imports/:id", d.Imports.Show)
	signedIn.POST("/imports/:id/mapping", d.Imports.SaveMapping)
	signedIn.POST("/imports/:id/import", d.Imports.Start)
	signedIn.GET("/imports/:id/progress", d.Imports.Progress)
	signedIn.GET("/imports/:id/rejected.csv", d.Imports.Rejected)

	// An application's documents: every handler checks the application is
	// the user's (admins: any) and, for changes, still editable.
	signedIn.GET("/applications/:id/documents", d.Documents.Section)
	signedIn.GET("/applications/:id/documents/list", d.Documents.List)
	signedIn.POST("/applications/:id/documents", d.Documents.Upload)
	signedIn.GET("/applications/:id/documents/:doc/preview", d.Documents.Preview)
	signedIn.HEAD("/applications/:id/documents/:doc/preview", d.Documents.Preview)
	signedIn.GET("/applications/:id/documents/:doc/download", d.Documents.Download)
	signedIn.HEAD("/applications/:id/documents/:doc/download", d.Documents.Download)
	signedIn.POST("/applications/:id/documents/:doc/replace", d.Documents.Replace)
	signedIn.POST("/applications/:id/documents/:doc/delete", d.Documents.Delete)

	// Admins only.
	admin := signedIn.Group("/admin", auth.RequireRole(models.RoleAdmin))
	admin.GET("/users", d.Auth.ListUsers)
	admin.POST("/users", d.Auth.CreateUser)
	admin.POST("/users/:id/deactivate", d.Auth.DeactivateUser)
	admin.POST("/users/:id/reactivate", d.Auth.ReactivateUser)
	admin.POST("/users/:id/reset-password", d.Auth.ResetUserPassword)
	admin.POST("/users/:id/reset-mfa", d.Auth.ResetUserMFA)
	admin.GET("/pricing", d.Pricing.List)
	admin.GET("/pricing/new", d.Pricing.New)
	admin.POST("/pricing", d.Pricing.Create)
	admin.GET("/pricing/:id", d.Pricing.Edit)
	admin.POST("/pricing/:id", d.Pricing.Update)
	admin.POST("/pricing/:id/archive", d.Pricing.Archive)
	admin.POST("/pricing/:id/restore", d.Pricing.Restore)
	admin.GET("/pricing/:id/delete", d.Pricing.ConfirmDelete)
	admin.POST("/pricing/:id/delete", d.Pricing.Delete)
	admin.GET("/outbox", d.Outbox.List)
	admin.GET("/outbox/:id", d.Outbox.Show)
	admin.GET("/outbox/:id/html", d.Outbox.HTML)
	admin.POST("/outbox/:id/resend", d.Outbox.Resend)
	admin.GET("/reminders", d.Reminders.ShowSettings)
	admin.POST("/reminders", d.Reminders.SaveSettings)

	// Unknown paths still get the session, so the 404 page shows the user's navigation.
	site.RouteNotFound("/*", notFound)
}
