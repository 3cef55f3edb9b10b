package reminders

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/httpx"
	"github.com/payportal/portal/internal/view"
)

// Handlers serve an application's reminders and the admins' settings.
type Handlers struct {
	svc   *Service
	views *view.Renderer
}

// NewHandlers returns the reminders' handlers.
func NewHandlers(svc *Service, views *view.Renderer) *Handlers {
	return &Handlers{svc: svc, views: views}
}

// Panel shows what was sent about an application and what comes next
// (GET /applications/:id/reminders): the fragment the application page loads, or a
// whole page without JavaScript.
func (h *Handlers) Panel(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	p, err := h.svc.Panel(c.Request().Context(), view.CurrentUser(c), id)
	if err != nil {
		return err
	}
	if httpx.IsHTMX(c) {
		return h.views.Fragment(c, http.StatusOK, "reminders/panel", p)
	}
	return h.views.Page(c, http.StatusOK, "reminders/application", "Reminders", p)
}

// Pause stops the reminders of an application (POST /applications/:id/reminders/pause).
func (h *Handlers) Pause(c echo.Context) error { return h.setPaused(c, true) }

// Resume restarts them (POST /applications/:id/reminders/resume).
func (h *Handlers) Resume(c echo.Context) error { return h.setPaused(c, false) }

func (h *Handlers) setPaused(c echo.Context, paused bool) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	u := view.CurrentUser(c)
	if err := h.svc.SetPaused(c.Request().Context(), u, id, paused); err != nil {
		return err
	}
	if httpx.IsHTMX(c) {
		p, err := h.svc.Panel(c.Request().Context(), u, id)
		if err != nil {
			return err
		}
		c.Response().Header().Set("HX-Trigger", `{"`+httpx.EventApplicationChanged+`":{"target":"body"}}`)
		return h.views.Fragment(c, http.StatusOK, "reminders/panel", p)
	}
	msg := "Reminders resumed."
	if paused {
		msg = "Reminders paused: none goes out until you resume them."
	}
	h.views.Flash(c, "success", msg)
	return c.Redirect(http.StatusSeeOther, applications.Path(id)+"#reminders")
}

// settingsPage is the data of the admins' page.
type settingsPage struct {
	Kinds    []Kind
	Settings Settings
	Form     map[string]string
	Errors   apperr.FieldErrors
	Weekdays []weekday
}

type weekday struct {
	Value int
	Name  string
}

// ShowSettings shows the reminder settings (GET /admin/reminders).
func (h *Handlers) ShowSettings(c echo.Context) error {
	set, err := h.svc.Settings(c.Request().Context())
	if err != nil {
		return err
	}
	return h.renderSettings(c, http.StatusOK, set, formOf(set), nil)
}

// SaveSettings stores them (POST /admin/reminders).
func (h *Handlers) SaveSettings(c echo.Context) error {
	values, err := c.FormParams()
	if err != nil {
		return err
	}
	set, err := h.svc.SaveSettings(c.Request().Context(), view.CurrentUser(c), SettingsForm{Values: values})
	if errs, ok := apperr.FieldsOf(err); ok {
		typed := map[string]string{}
		for k := range values {
			typed[k] = values.Get(k)
		}
		return h.renderSettings(c, http.StatusUnprocessableEntity, set, typed, errs)
	}
	if err != nil {
		return err
	}
	h.views.Flash(c, "success", "Reminder settings saved.")
	return c.Redirect(http.StatusSeeOther, "/admin/reminders")
}

func (h *Handlers) renderSettings(c echo.Context, status int, set Settings, form map[string]string, errs apperr.FieldErrors) error {
	days := make([]weekday, 7)
	for i := range days {
		days[i] = weekday{Value: i, Name: weekdayName(i)}
	}
	return h.views.Page(c, status, "reminders/settings", "Reminders",
		settingsPage{Kinds: Kinds(), Settings: set, Form: form, Errors: errs, Weekdays: days})
}

// formOf is the form showing stored settings.
func formOf(set Settings) map[string]string {
	out := map[string]string{}
	for _, k := range Kinds() {
		s := set[k]
		if s.Enabled {
			out[Field(k, "enabled")] = "on"
		}
		out[Field(k, "after_days")] = itoa(s.AfterDays)
		out[Field(k, "interval_days")] = itoa(s.IntervalDays)
		out[Field(k, "max_sends")] = itoa(s.MaxSends)
		out[Field(k, "weekday")] = itoa(int(s.DigestWeekday))
	}
	return out
}
