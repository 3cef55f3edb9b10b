package pricing

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/view"
)

// Archive retires a model.
func (h *Handlers) Archive(c echo.Context) error {
	m, err := h.load(c)
	if err != nil {
		return err
	}
	if m, err = h.service.Archive(c.Request().Context(), view.CurrentUser(c), m.ID); err != nil {
		return err
	}
	h.views.Flash(c, "success", "Pricing model “"+m.Name+"” archived. Reps can no longer choose it; applications that use it keep it.")
	return c.Redirect(http.StatusSeeOther, "/admin/pricing")
}

// Restore brings an archived model back, or shows on its page why it cannot.
func (h *Handlers) Restore(c echo.Context) error {
	m, err := h.load(c)
	if err != nil {
		return err
	}
	restored, err := h.service.Restore(c.Request().Context(), view.CurrentUser(c), m.ID)
	if apperr.KindOf(err) == apperr.KindConflict {
		return h.renderForm(c, http.StatusConflict, &formPage{Model: m, Form: formFromModel(m), Problem: apperr.MessageOf(err)})
	}
	if err != nil {
		return err
	}
	h.views.Flash(c, "success", "Pricing model “"+restored.Name+"” restored.")
	return c.Redirect(http.StatusSeeOther, "/admin/pricing")
}

// deletePage is the data of the delete confirmation page.
type deletePage struct {
	Model   *models.PricingModel
	InUse   bool
	Problem string
}

// ConfirmDelete asks before deleting, or explains at once that the model is in
// use and offers to archive it instead.
func (h *Handlers) ConfirmDelete(c echo.Context) error {
	m, err := h.load(c)
	if err != nil {
		return err
	}
	inUse, err := h.service.InUse(c.Request().Context(), m.ID)
	if err != nil {
		return err
	}
	page := deletePage{Model: m, InUse: inUse}
	if inUse {
		page.Problem = apperr.MessageOf(inUseError(m))
	}
	return h.views.Page(c, http.StatusOK, "pricing/delete", "Delete "+m.Name, page)
}

// Delete removes an unused model; a model in use is refused with 409.
func (h *Handlers) Delete(c echo.Context) error {
	m, err := h.load(c)
	if err != nil {
		return err
	}
	deleted, err := h.service.Delete(c.Request().Context(), view.CurrentUser(c), m.ID)
	if apperr.KindOf(err) == apperr.KindConflict {
		page := deletePage{Model: m, InUse: true, Problem: apperr.MessageOf(err)}
		return h.views.Page(c, http.StatusConflict, "pricing/delete", "Delete "+m.Name, page)
	}
	if err != nil {
		return err
	}
	h.views.Flash(c, "success", "Pricing model “"+deleted.Name+"” deleted.")
	return c.Redirect(http.StatusSeeOther, "/admin/pricing")
}
