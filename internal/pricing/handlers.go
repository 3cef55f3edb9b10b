package pricing

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/documents"
	"github.com/payportal/portal/internal/httpx"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/view"
)

// Handlers serves the admin pages of pricing models.
type Handlers struct {
	service *Service
	views   *view.Renderer
}

// NewHandlers returns the pricing admin handlers.
func NewHandlers(service *Service, views *view.Renderer) *Handlers {
	return &Handlers{service: service, views: views}
}

// formPage is the data of the new and edit pages.
type formPage struct {
	Model         *models.PricingModel // nil on the new page
	Form          Form
	Errors        apperr.FieldErrors
	Problem       string // a message about the whole page, e.g. a refused restore
	History       []HistoryEntry
	DocumentTypes []documents.DocumentType
}

// List shows current and archived models.
func (h *Handlers) List(c echo.Context) error {
	listing, err := h.service.ListForAdmin(c.Request().Context())
	if err != nil {
		return err
	}
	return h.views.Page(c, http.StatusOK, "pricing/list", "Pricing models", listing)
}

// New shows the form of a new model.
func (h *Handlers) New(c echo.Context) error {
	return h.renderForm(c, http.StatusOK, &formPage{Form: newForm()})
}

// Create stores a new model.
func (h *Handlers) Create(c echo.Context) error {
	var f Form
	if err := c.Bind(&f); err != nil {
		return err
	}
	page := &formPage{Form: f}
	m, err := h.service.Create(c.Request().Context(), view.CurrentUser(c), f.Input())
	if errs, ok := apperr.FieldsOf(err); ok {
		page.Errors = errs
		return h.renderForm(c, http.StatusUnprocessableEntity, page)
	}
	if err != nil {
		return err
	}
	h.views.Flash(c, "success", "Pricing model “"+m.Name+"” created.")
	return c.Redirect(http.StatusSeeOther, "/admin/pricing")
}

// Edit shows a model's form and history; an archived model is shown read-only.
func (h *Handlers) Edit(c echo.Context) error {
	m, err := h.load(c)
	if err != nil {
		return err
	}
	return h.renderForm(c, http.StatusOK, &formPage{Model: m, Form: formFromModel(m)})
}

// Update saves an edit.
func (h *Handlers) Update(c echo.Context) error {
	m, err := h.load(c)
	if err != nil {
		return err
	}
	var f Form
	if err := c.Bind(&f); err != nil {
		return err
	}
	page := &formPage{Model: m, Form: f}
	saved, err := h.service.Update(c.Request().Context(), view.CurrentUser(c), m.ID, f.Version, f.Input())
	errs, invalid := apperr.FieldsOf(err)
	switch {
	case invalid:
		page.Errors = errs
		return h.renderForm(c, http.StatusUnprocessableEntity, page)
	case errors.Is(err, ErrStale), errors.Is(err, ErrArchived):
		// Keep what the admin typed, on top of the current version, so that
		// saving again is a deliberate choice to replace the other change.
		page.Problem = apperr.MessageOf(err)
		if page.Model, err = h.load(c); err != nil {
			return err
		}
		page.Form.Version = page.Model.Version
		return h.renderForm(c, http.StatusConflict, page)
	case err != nil:
		return err
	}
	h.views.Flash(c, "success", "Pricing model “"+saved.Name+"” saved.")
	return c.Redirect(http.StatusSeeOther, "/admin/pricing")
}

// load reads the model named by the :id path parameter.
func (h *Handlers) load(c echo.Context) (*models.PricingModel, error) {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return nil, err
	}
	return h.service.Get(c.Request().Context(), id)
}

func (h *Handlers) renderForm(c echo.Context, status int, page *formPage) error {
	page.DocumentTypes = documents.DocumentTypes
	title := "New pricing model"
	if page.Model != nil {
		title = page.Model.Name
		history, err := h.service.History(c.Request().Context(), page.Model.ID)
		if err != nil {
			return err
		}
		page.History = history
	}
	return h.views.Page(c, status, "pricing/form", title, page)
}
