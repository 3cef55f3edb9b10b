package web

import (
	"net/http"

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
	e.GET("/metrics", echo.WrapHandler(promhttp.HandlerFor(d.Registry, promhttp.HandlerOpts{})))
	e.GET("/assets/*", d.Static.Serve)

	// Pages: sessions, the signed-in user and CSRF on every unsafe request.
	site := e.Group("", sessionStack(d)...)
	site.GET("/login", d.Auth.ShowLogin)
	site.POST("/login", d.Auth.Login)
	site.POST("/logout", d.Auth.Logout)

	// Any signed-in user.
	signedIn := site.Group("", auth.RequireUser)
	signedIn.GET("/", home(d))
	signedIn.GET("/account/password", d.Auth.ShowChangePassword)
	signedIn.POST("/account/password", d.Auth.ChangePassword)

	// Admins only.
	admin := signedIn.Group("/admin", auth.RequireRole(models.RoleAdmin))
	admin.GET("/users", d.Auth.ListUsers)
	admin.POST("/users", d.Auth.CreateUser)
	admin.POST("/users/:id/deactivate", d.Auth.DeactivateUser)
	admin.POST("/users/:id/reactivate", d.Auth.ReactivateUser)
	admin.POST("/users/:id/reset-password", d.Auth.ResetUserPassword)

	// Unknown paths still get the session, so the 404 page shows the user's navigation.
	site.RouteNotFound("/*", notFound)
}

// home is the dashboard until the applications list takes its place.
func home(d Deps) echo.HandlerFunc {
	return func(c echo.Context) error {
		return d.Views.Page(c, http.StatusOK, "dashboard/index", "Dashboard", nil)
	}
}
