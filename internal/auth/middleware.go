package auth

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/httpx"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/view"
)

// IdleSignOutMessage is shown at sign-in after a session ended for being idle.
const IdleSignOutMessage = "You were signed out after %d minutes without activity. Sign in again to continue."

// LoadUser puts the signed-in user on the request when the session names an
// active user whose session version still matches and whose idle limit has
// not passed. A deactivated user, or one whose password was reset, is signed
// out on their very next request. The time of the last request is written
// at most once a minute, so reading pages does not write the session.
func (s *Service) LoadUser(sm *scs.SessionManager) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			id, version, ok := sessionUser(c, sm)
			if !ok {
				return next(c)
			}
			ctx := c.Request().Context()
			now := s.now()
			idle := time.Duration(sm.GetInt(ctx, sessionIdle)) * time.Second
			seen := time.Unix(sm.GetInt64(ctx, sessionSeen), 0)
			if idle <= 0 || now.Sub(seen) > idle {
				// Sign out of the session, with a new token, and say why at
				// the sign-in page. (A session without an idle limit dates
				// from before limits were per user: it signs in again.)
				if err := sm.Clear(ctx); err != nil {
					return err
				}
				if err := sm.RenewToken(ctx); err != nil {
					return err
				}
				if idle > 0 {
					sm.Put(ctx, "flashes", []view.Flash{{Kind: "info", Message: fmt.Sprintf(IdleSignOutMessage, int(idle/time.Minute))}})
				}
				return next(c)
			}
			u, err := s.users.ByID(ctx, id)
			switch {
			case errors.Is(err, models.ErrNotFound):
			case err != nil:
				return err
			case u.Active && u.SessionVersion == version:
				if now.Sub(seen) >= seenGranularity {
					sm.Put(ctx, sessionSeen, now.Unix())
				}
				view.SetUser(c, u)
				return next(c)
			}
			if err := sm.Destroy(ctx); err != nil {
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

// RequireStaff lets only the reseller's own people (admins and sales reps)
// through. A merchant user gets 404: the onboarding routes do not exist for
// them, and the answer tells nothing of what they name.
func RequireStaff(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !view.CurrentUser(c).IsStaff() {
			return echo.NewHTTPError(http.StatusNotFound)
		}
		return next(c)
	}
}

// HomeFor sends users who are not staff from the staff's home page (the
// dashboard of applications) to home instead: merchant users land on their
// merchant.
func HomeFor(home string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if u := view.CurrentUser(c); u != nil && !u.IsStaff() {
				return c.Redirect(http.StatusSeeOther, home)
			}
			return next(c)
		}
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
