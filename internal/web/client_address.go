package web

import (
	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/audit"
)

// auditClientAddress puts the request's client address (c.RealIP: the peer, or what a
// trusted proxy of PORTAL_TRUSTED_PROXIES reports in X-Forwarded-For) in its
// context, where every audit entry the request makes finds it.
func auditClientAddress(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		c.SetRequest(r.WithContext(audit.WithClientAddress(r.Context(), c.RealIP())))
		return next(c)
	}
}
