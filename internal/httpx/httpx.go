// Package httpx holds the few request helpers that the web layer and every room's
// handlers share: telling an htmx request apart, reading a UUID path parameter, and
// the names of the htmx events pages listen for. It imports no room and no part of
// internal/web, so any handler may use it.
package httpx

import (
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/models"
)

// EventApplicationChanged is the htmx event sent after anything that changes what an
// application page's checklist or history show; both listen for it on <body> and
// reload themselves.
const EventApplicationChanged = "application-changed"

// IsHTMX reports whether the request was made by htmx (a fragment is wanted).
func IsHTMX(c echo.Context) bool { return c.Request().Header.Get("HX-Request") == "true" }

// UUIDParam reads the path parameter name as a UUID. A malformed one names nothing
// that exists, so it is models.ErrNotFound, which the error handler answers with 404.
func UUIDParam(c echo.Context, name string) (uuid.UUID, error) {
	id, err := uuid.Parse(c.Param(name))
	if err != nil {
		return uuid.Nil, models.ErrNotFound
	}
	return id, nil
}
