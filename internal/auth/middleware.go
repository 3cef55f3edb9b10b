package auth

import (
	"errors"
	"net/http"

	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/httpx"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/view"
)

// LoadUser puts the signed-in user on the request when the session names an
// active user whose session version still matches. A deactivated user, or one
// whose password was reset, is signed out on their very next request.
func LoadUser(sm *scs.SessionManager, users *Store) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			id, version, ok := sessionUser(c, sm)
			if !ok {
				return next(c)
			}
			u, err := users.ByID(c.Request().Context(), id)
			switch {
			case errors.Is(err, models.ErrNotFound):
			case err != nil:
				return err
			case u.Active && u.SessionVersion == version:
				view.SetUser(c, u)
				return next(c)
			}
			if err := sm.Destroy(c.Request().Context()); err != nil {
				return err
			}
			return next(c)
		}
	}
}

// SessionEndedMessage answers an htmx request whose session has ended.
const SessionEndedMessage = "Not saved: your session has ended. Your values are still on this page: sign in again in another tab, then press Save here."

// RequireUser sends anonymous visitors to the sign-in page; htmx requests get
// 401 and a message instead, so that the page keeps what was typed.
func RequireUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		u := view.CurrentUser(c)
		if u == nil {
			if httpx.IsHTMX(c) {
				// No redirect: navigating away would throw away what the rep
				// typed. The page shows this beside Save and keeps the values.
				return c.String(http.StatusUnauthorized, SessionEndedMessage)
			}
			if c.Request().Method == http.MethodGet {
				return c.Redirect(http.StatusSeeOther, "/login?next="+c.Request().URL.RequestURI())
			}
			return echo.NewHTTPError(http.StatusUnauthorized)
		}
		// A generated password must be replaced before anything else.
		if u.MustChangePassword && c.Path() != "/account/password" && c.Path() != "/logout" {
			return c.Redirect(http.StatusSeeOther, "/account/password")
		}
		return next(c)
	}
}

// RequireRole lets only users holding role through; others get 403.
func RequireRole(role models.Role) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if u := view.CurrentUser(c); u == nil || u.Role != role {
				return echo.NewHTTPError(http.StatusForbidden)
			}
			return next(c)
		}
	}
}
