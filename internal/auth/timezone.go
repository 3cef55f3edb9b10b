package auth

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/view"
)

// ErrUnknownTimeZone refuses a zone name that is not an IANA time zone.
var ErrUnknownTimeZone = apperr.New(apperr.KindInvalid, "Enter a time zone such as America/New_York or Europe/London.")

// SetTimeZone stores u's time zone after checking it is a real IANA zone.
// With overwrite false it only fills an empty one (the browser's guess at
// sign-in never replaces a choice).
func (s *Service) SetTimeZone(ctx context.Context, u *models.User, name string, overwrite bool) error {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 64 || name == "Local" || strings.ContainsAny(name, " \\\x00") {
		return ErrUnknownTimeZone
	}
	if _, err := time.LoadLocation(name); err != nil {
		return ErrUnknownTimeZone
	}
	q := s.users.db.WithContext(ctx).Model(&models.User{}).Where("id = ?", u.ID)
	if !overwrite {
		q = q.Where("time_zone = ''")
	}
	if err := q.Update("time_zone", name).Error; err != nil {
		return err
	}
	u.TimeZone = name
	return nil
}

// BrowserZoneCookie is where app.js keeps the browser's time zone, so that any
// way of signing in (a password, an invitation, a reset link, the second step)
// can make it the user's, also when its form has no "tz" field.
const BrowserZoneCookie = "portal_tz"

// adoptBrowserZone makes the browser's time zone the user's when they have
// none yet, so the first session after signing in (by any way) shows times
// where they are. The zone comes from the form's "tz" field (app.js fills
// it) or the cookie app.js sets; one that is not a zone is ignored.
func (h *Handlers) adoptBrowserZone(c echo.Context, u *models.User) error {
	if u.TimeZone != "" {
		return nil
	}
	zone := c.FormValue("tz")
	if zone == "" {
		if ck, err := c.Cookie(BrowserZoneCookie); err == nil {
			zone, _ = url.QueryUnescape(ck.Value)
		}
	}
	if zone == "" {
		return nil
	}
	err := h.service.SetTimeZone(c.Request().Context(), u, zone, false)
	if errors.Is(err, ErrUnknownTimeZone) {
		return nil
	}
	return err
}

type timeZonePage struct {
	Zone  string
	Error string
}

// ShowTimeZone shows the user's time zone setting.
func (h *Handlers) ShowTimeZone(c echo.Context) error {
	return h.views.Page(c, http.StatusOK, "auth/timezone", "Time zone", timeZonePage{Zone: view.CurrentUser(c).TimeZone})
}

// SaveTimeZone changes the user's time zone.
func (h *Handlers) SaveTimeZone(c echo.Context) error {
	u := view.CurrentUser(c)
	zone := c.FormValue("time_zone")
	err := h.service.SetTimeZone(c.Request().Context(), u, zone, true)
	if errors.Is(err, ErrUnknownTimeZone) {
		return h.views.Page(c, http.StatusUnprocessableEntity, "auth/timezone", "Time zone", timeZonePage{Zone: zone, Error: err.Error()})
	}
	if err != nil {
		return err
	}
	h.views.Flash(c, "success", "Times are now shown in "+u.TimeZone+".")
	return c.Redirect(http.StatusSeeOther, "/account/time-zone")
}
