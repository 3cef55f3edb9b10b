package auth

import (
	"context"
	"errors"
	"net/http"
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
