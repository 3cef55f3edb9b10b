package web

import (
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/payportal/portal/internal/auth"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/partnerapi"
)

// routes is the portal's site map. Role checks are visible on each group.
func routes(e *echo.Echo, d Deps) {
	// Machine endpoints: no session, no CSRF.
	e.GET("/healthz", healthz)
	e.GET("/readyz", readyz(d.DB))
	e.GET("/metrics", metricsGuard(d.Config.MetricsToken, echo.WrapHandler(promhttp.HandlerFor(d.Registry, promhttp.HandlerOpts{}))))
	e.GET("/assets/*", d.Static.Serve)
	e.GET("/favicon.ico", d.Static.Favicon)
	// The upstream's status webhooks: checked by the token in the body.
	e.POST("/webhooks/upstream", d.Webhook.Receive)
	// The merchant's e-mailed link: no sign-in, the unguessable token is the key.
	e.GET("/l/:token", d.Tracking.Follow)

	apiRoutes(e, d)

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

	// Any signed-in user. Merchant users' home is their merchant.
	signedIn := site.Group("", auth.RequireUser)
	signedIn.GET("/", d.Dashboard.List, auth.HomeFor("/merchants"))
	signedIn.GET("/account/password", d.Auth.ShowChangePassword)
	signedIn.POST("/account/password", d.Auth.ChangePassword)
	signedIn.GET("/account/time-zone", d.Auth.ShowTimeZone)
	signedIn.POST("/account/time-zone", d.Auth.SaveTimeZone)
	signedIn.GET("/account/security", d.Auth.ShowSecurity)
	signedIn.GET("/account/security/setup", d.Auth.ShowMFASetup)
	signedIn.POST("/account/security/setup", d.Auth.ConfirmMFASetup)
	signedIn.POST("/account/security/recovery-codes", d.Auth.RegenerateRecoveryCodes)
	signedIn.POST("/account/security/turn-off", d.Auth.TurnOffMFA)

	// Applications are the reseller's staff's: for merchant users they do not
	// exist (404). Every handler loads the application through the store's
	// Visible or Editable, so another rep's application is 404 on every route. Reveal,
	// reassign and restore are admin actions; their role check comes after that
	// visibility check, for the same reason.
	staff := signedIn.Group("", auth.RequireStaff)
	staff.POST("/applications", d.Applications.Create)
	staff.GET("/applications/:id", d.Applications.Show)
	staff.POST("/applications/:id/sections/:section", d.Applications.SaveSection)
	staff.GET("/applications/:id/checklist", d.Applications.Checklist)
	staff.GET("/applications/:id/review", d.Applications.Review)
	staff.GET("/applications/:id/history", d.Applications.History)
	staff.POST("/applications/:id/delete", d.Applications.Delete)
	staff.POST("/applications/:id/reveal", d.Applications.Reveal)     // admins
	staff.POST("/applications/:id/reassign", d.Applications.Reassign) // admins
	staff.POST("/applications/:id/restore", d.Applications.Restore)   // admins
	// Submission: the push upstream, its live progress, the merchant's e-mail again.
	staff.POST("/applications/:id/submit", d.Submissions.Submit)
	staff.GET("/applications/:id/progress", d.Submissions.Progress)
	staff.POST("/applications/:id/handoff/resend", d.Handoff.ResendHandoff)
	// Reminders: what was sent about an application, and pausing them.
	staff.GET("/applications/:id/reminders", d.Reminders.Panel)
	staff.POST("/applications/:id/reminders/pause", d.Reminders.Pause)
	staff.POST("/applications/:id/reminders/resume", d.Reminders.Resume)

	// The onboarding funnel: admins see every application, a rep their own.
	staff.GET("/insights", d.Insights.Show)
	staff.GET("/insights.csv", d.Insights.CSV)

	// Importing drafts from a CSV file: a batch is its uploader's alone.
	staff.GET("/imports", d.Imports.Index)
	staff.GET("/imports/template.csv", d.Imports.Template)
	staff.POST("/imports", d.Imports.Upload)
	staff.GET("/imports/:id", d.Imports.Show)
	staff.POST("/imports/:id/mapping", d.Imports.SaveMapping)
	staff.POST("/imports/:id/import", d.Imports.Start)
	staff.GET("/imports/:id/progress", d.Imports.Progress)
	staff.GET("/imports/:id/rejected.csv", d.Imports.Rejected)

	// An application's documents: every handler checks the application is
	// the user's (admins: any) and, for changes, still editable.
	staff.GET("/applications/:id/documents", d.Documents.Section)
	staff.GET("/applications/:id/documents/list", d.Documents.List)
	staff.POST("/applications/:id/documents", d.Documents.Upload)
	staff.GET("/applications/:id/documents/:doc/preview", d.Documents.Preview)
	staff.HEAD("/applications/:id/documents/:doc/preview", d.Documents.Preview)
	staff.GET("/applications/:id/documents/:doc/download", d.Documents.Download)
	staff.HEAD("/applications/:id/documents/:doc/download", d.Documents.Download)
	staff.POST("/applications/:id/documents/:doc/replace", d.Documents.Replace)
	staff.POST("/applications/:id/documents/:doc/delete", d.Documents.Delete)

	// Merchants: every handler loads the merchant through Service.Visible, so
	// a merchant the user may not see (another rep's, another merchant's for
	// a merchant user) is 404 on every route. The role checks come after it:
	// admins only, or admins and the owning rep (403 for a member of the
	// merchant, who may look but not manage).
	signedIn.GET("/merchants", d.Merchants.List)
	signedIn.GET("/merchants/:id", d.Merchants.Show)
	signedIn.POST("/merchants/:id/payments", d.Merchants.SetPayments)                 // admins
	signedIn.POST("/merchants/:id/payments/test", d.Merchants.TestPayments)           // admins, owning rep
	signedIn.POST("/merchants/:id/terminals", d.Merchants.SetTerminalKey)             // admins
	signedIn.POST("/merchants/:id/terminals/test", d.Merchants.TestTerminals)         // admins, owning rep
	signedIn.POST("/merchants/:id/locations", d.Merchants.AddLocation)                // admins
	signedIn.POST("/merchants/:id/locations/:loc", d.Merchants.UpdateLocation)        // admins
	signedIn.POST("/merchants/:id/locations/:loc/remove", d.Merchants.RemoveLocation) // admins
	signedIn.POST("/merchants/:id/fetch", d.Merchants.FetchAgain)                     // admins, sandbox mode
	signedIn.POST("/merchants/:id/members", d.Merchants.Invite)                       // admins, owning rep
	signedIn.POST("/merchants/:id/members/:user", d.Merchants.SetPermissions)         // admins, owning rep
	signedIn.POST("/merchants/:id/members/:user/remove", d.Merchants.RemoveMember)    // admins, owning rep
	signedIn.POST("/merchants/:id/suspend", d.Merchants.Suspend)                      // admins
	signedIn.POST("/merchants/:id/resume", d.Merchants.Resume)                        // admins
	signedIn.POST("/merchants/:id/alert", d.Merchants.ResolveAlert)                   // admins

	// A merchant's payments: the virtual terminal, the ledger, batches,
	// customers. Every handler loads the merchant as the user may see it (404
	// otherwise) and checks the right its action needs (403) in the payments
	// room; a suspended merchant cannot transact (409).
	pay := signedIn.Group("/merchants/:id")
	pay.GET("/payments/new", d.Payments.NewPayment)         // take payments
	pay.POST("/payments/card", d.Payments.PayCard)          // take payments
	pay.POST("/payments/ach", d.Payments.PayACH)            // take payments
	pay.POST("/payments/saved", d.Payments.PaySaved)        // take payments
	pay.GET("/transactions", d.Payments.Ledger)             // view
	pay.GET("/transactions/export.csv", d.Payments.Export)  // view
	pay.GET("/batches", d.Payments.Batches)                 // view
	pay.GET("/transactions/:tid", d.Payments.Show)          // view
	pay.GET("/transactions/:tid/status", d.Payments.Status) // view
	pay.GET("/transactions/:tid/reverse", d.Payments.ShowReverse)
	pay.POST("/transactions/:tid/reverse", d.Payments.Reverse) // void or refund
	pay.POST("/transactions/:tid/capture", d.Payments.Capture) // capture and adjust
	pay.POST("/transactions/:tid/tip", d.Payments.AdjustTip)   // capture and adjust
	pay.POST("/transactions/:tid/receipt", d.Payments.SendReceipt)
	pay.GET("/customers", d.Payments.Customers)
	pay.POST("/customers", d.Payments.CreateCustomer)
	pay.GET("/customers/:cid", d.Payments.ShowCustomer)
	pay.POST("/customers/:cid/methods", d.Payments.SaveMethod)               // saved methods
	pay.POST("/customers/:cid/methods/:sid/remove", d.Payments.RemoveMethod) // saved methods

	// A merchant's card terminals. Every handler loads the merchant as the
	// user may see it (404 otherwise); launching checks the right of its kind
	// (use terminals; refund, void, capture and adjust; installers: save card
	// and test amounts) in the terminals room (403); a suspended merchant
	// launches nothing (409), a busy device takes nothing (409).
	term := signedIn.Group("/merchants/:id/terminals")
	term.GET("", d.Terminals.Devices)                           // view
	term.POST("/refresh", d.Terminals.Refresh)                  // use terminals, installers
	term.GET("/launch", d.Terminals.NewLaunch)                  // the right of the kind
	term.POST("/launches", d.Terminals.Launch)                  // the right of the kind
	term.GET("/launches/:launch", d.Terminals.Show)             // view
	term.GET("/launches/:launch/status", d.Terminals.Status)    // view
	term.POST("/launches/:launch/confirm", d.Terminals.Confirm) // use terminals, installers
	term.POST("/launches/:launch/resend", d.Terminals.Resend)   // the right of the kind

	// Admins only.
	admin := signedIn.Group("/admin", auth.RequireRole(models.RoleAdmin))
	admin.GET("/users", d.Auth.ListUsers)
	admin.POST("/users", d.Auth.CreateUser)
	admin.GET("/users/:id", d.Auth.ShowUser)
	admin.POST("/users/:id/role", d.Auth.SetUserRole)
	admin.POST("/users/:id/deactivate", d.Auth.DeactivateUser)
	admin.POST("/users/:id/reactivate", d.Auth.ReactivateUser)
	admin.POST("/users/:id/reset-password", d.Auth.ResetUserPassword)
	admin.POST("/users/:id/reset-mfa", d.Auth.ResetUserMFA)
	admin.POST("/users/:id/resend-invitation", d.Auth.ResendInvitation)
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
	admin.GET("/api-keys", d.APIKeys.List)
	admin.POST("/api-keys", d.APIKeys.Create)
	admin.POST("/api-keys/:id/revoke", d.APIKeys.Revoke)
	// Partner webhooks: endpoints, their secrets and their delivery logs.
	admin.GET("/webhooks", d.WebhookEndpoints.List)
	admin.GET("/webhooks/new", d.WebhookEndpoints.New)
	admin.POST("/webhooks", d.WebhookEndpoints.Create)
	admin.GET("/webhooks/:id", d.WebhookEndpoints.Show)
	admin.POST("/webhooks/:id", d.WebhookEndpoints.Update)
	admin.POST("/webhooks/:id/disable", d.WebhookEndpoints.Disable)
	admin.POST("/webhooks/:id/enable", d.WebhookEndpoints.Enable)
	admin.POST("/webhooks/:id/rotate", d.WebhookEndpoints.Rotate)
	admin.POST("/webhooks/:id/delete", d.WebhookEndpoints.Delete)
	admin.GET("/webhooks/:id/deliveries/:delivery", d.WebhookEndpoints.Delivery)
	admin.POST("/webhooks/:id/deliveries/:delivery/resend", d.WebhookEndpoints.Resend)

	// Unknown paths still get the session, so the 404 page shows the user's navigation.
	site.RouteNotFound("/*", notFound)
}

// apiRoutes is the partner API's site map. No session and no CSRF: a request is
// authenticated by its bearer key alone (a cookie is never read here, and a key is
// never read on a page). Every route needs a working key (401) and counts against its
// rate limit (429); writes need a read-write key (403) and make a POST with an
// Idempotency-Key safe to retry. Which objects a key reaches is decided by the rooms'
// use cases, called as the key's rep or, for a reseller-wide key, with the admins'
// view (writes: as the object's owning rep): another rep's object is 404.
func apiRoutes(e *echo.Echo, d Deps) {
	e.GET("/api/docs", d.APIDocs.Page)
	e.GET("/api/v1/openapi.json", d.APIDocs.Document)
	v1 := e.Group("/api/v1", partnerapi.RequireKey(d.APIKeyService, d.APIGuard))
	write := []echo.MiddlewareFunc{partnerapi.RequireWrite, partnerapi.Idempotent(d.APIGuard, d.Config.Storage.MaxUploadBytes+1<<20)}
	v1.GET("/pricing-models", d.API.ListPricingModels)
	v1.GET("/applications", d.API.ListApplications)
	v1.POST("/applications", d.API.CreateApplication, write...)
	v1.GET("/applications/:id", d.API.GetApplication)
	v1.PATCH("/applications/:id", d.API.UpdateApplication, write...)
	v1.GET("/applications/:id/checklist", d.API.GetChecklist)
	v1.POST("/applications/:id/submit", d.API.SubmitApplication, write...)
	v1.GET("/applications/:id/submission", d.API.GetSubmission)
	v1.GET("/applications/:id/documents", d.API.ListDocuments)
	v1.POST("/applications/:id/documents", d.API.UploadDocument, write...)
	v1.DELETE("/applications/:id/documents/:documentId", d.API.DeleteDocument, write...)
	v1.GET("/applications/:id/handoff", d.API.GetHandoff)
	v1.POST("/applications/:id/handoff/resend", d.API.ResendHandoff, write...)
	v1.GET("/merchants", d.API.ListMerchants)
	v1.GET("/merchants/:merchantId", d.API.GetMerchant)
	v1.GET("/merchants/:merchantId/transactions", d.API.ListTransactions)
	v1.GET("/merchants/:merchantId/transactions/:transactionId", d.API.GetTransaction)
	// Unknown API paths are problem documents too, without a session.
	e.RouteNotFound("/api/*", notFound)
}
