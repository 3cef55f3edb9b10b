package dashboard

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/httpx"
	"github.com/payportal/portal/internal/view"
)

// Handlers serve the dashboard.
type Handlers struct {
	service *Service
	views   *view.Renderer
}

// NewHandlers returns the dashboard handlers.
func NewHandlers(service *Service, views *view.Renderer) *Handlers {
	return &Handlers{service: service, views: views}
}

// listTarget is the id of the element the dashboard's live filters swap.
const listTarget = "application-list"

// List renders the dashboard: the applications the user may see, searched, filtered, sorted
// and paged. The filter form's htmx requests get only the list back.
func (h *Handlers) List(c echo.Context) error {
	ctx, u := c.Request().Context(), view.CurrentUser(c)
	form, q := BindListForm(c.QueryParams())
	if !u.IsAdmin() {
		// Reps always see their own live applications; the service enforces it, and the form
		// must not pretend otherwise.
		form.Owner, form.Deleted = "", false
	}
	page, err := h.service.List(ctx, u, q)
	if err != nil {
		return err
	}
	data := &ListView{Form: form, Page: page, IsAdmin: u.IsAdmin()}
	if data.Users, err = h.service.OwnerChoices(ctx, u); err != nil {
		return err
	}
	status := http.StatusOK
	if form.Malformed {
		status = http.StatusBadRequest
	}
	if httpx.IsHTMX(c) && c.Request().Header.Get("HX-Target") == listTarget && c.Request().Header.Get("HX-History-Restore-Request") != "true" {
		return h.views.Fragment(c, status, "dashboard/list", data)
	}
	return h.views.Page(c, status, "dashboard/index", "Applications", data)
}
