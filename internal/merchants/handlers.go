package merchants

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/httpx"
	"github.com/payportal/portal/internal/view"
)

// Handlers serve the merchants' pages and forms.
type Handlers struct {
	service *Service
	views   *view.Renderer
}

// NewHandlers returns the merchants handlers.
func NewHandlers(service *Service, views *view.Renderer) *Handlers {
	return &Handlers{service: service, views: views}
}

// listPage is the data of the merchants list.
type listPage struct {
	Rows []ListRow
	// Staff: the reseller's people see the owner and the credentials' health.
	Staff, Admin bool
}

// List shows the merchants the user may see. A merchant user with one
// merchant goes straight to it: it is their home.
func (h *Handlers) List(c echo.Context) error {
	ctx, u := c.Request().Context(), view.CurrentUser(c)
	rows, err := h.service.ListWithHealth(ctx, u)
	if err != nil {
		return err
	}
	if u.IsMerchantUser() && len(rows) == 1 {
		return c.Redirect(http.StatusSeeOther, rows[0].Path())
	}
	title := "Merchants"
	if u.IsMerchantUser() {
		title = "Choose a merchant"
	}
	return h.views.Page(c, http.StatusOK, "merchants/list", title, listPage{Rows: rows, Staff: u.IsStaff(), Admin: u.IsAdmin()})
}

// showPage is the data of a merchant's page: the page, and a refused form
// with its messages and the values typed (never a secret).
type showPage struct {
	*Page
	Form   string
	Errors apperr.FieldErrors
	Values map[string]string
}

// Show renders a merchant's page.
func (h *Handlers) Show(c echo.Context) error {
	return h.render(c, http.StatusOK, "", nil, nil)
}

// render shows the merchant's page, with a refused form when form is set.
func (h *Handlers) render(c echo.Context, status int, form string, errs apperr.FieldErrors, values map[string]string) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	p, err := h.service.LoadPage(c.Request().Context(), view.CurrentUser(c), id)
	if err != nil {
		return err
	}
	return h.views.Page(c, status, "merchants/show", p.Merchant.Name, showPage{Page: p, Form: form, Errors: errs, Values: values})
}

// done answers a form that worked: post/redirect/get with a message. anchor
// is the part of the page to return to.
func (h *Handlers) done(c echo.Context, kind, message, anchor string) error {
	h.views.Flash(c, kind, message)
	return c.Redirect(http.StatusSeeOther, "/merchants/"+c.Param("id")+"#"+anchor)
}

// refused shows the page again when a form's input was refused (422, each
// message beside its field), and passes any other error on.
func (h *Handlers) refused(c echo.Context, err error, form string, values map[string]string) error {
	var ve *apperr.ValidationError
	if errors.As(err, &ve) {
		return h.render(c, http.StatusUnprocessableEntity, form, ve.Fields, values)
	}
	return err
}
