package web

import (
	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/audit"
)

// clientAddress puts the request's client address (c.RealIP: the peer, or what a
// trusted proxy reports in X-Forwarded-For when PORTAL_TRUST_PROXY is on) in its
// context, where every audit entry the request makes finds it.
func clientAddress(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		c.SetRequest(r.WithContext(audit.WithClientAddress(r.Context(), c.RealIP())))
		return next(c)
	}
}
