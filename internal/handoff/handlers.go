package handoff

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/httpx"
	"github.com/payportal/portal/internal/view"
)

// Handlers serve sending the merchant's e-mail again.
type Handlers struct {
	resender *Resender
	views    *view.Renderer
}

// NewHandlers returns the hand-off handlers.
func NewHandlers(r *Resender, views *view.Renderer) *Handlers {
	return &Handlers{resender: r, views: views}
}

// ResendHandoff e-mails the merchant their link again
// (POST /applications/:id/handoff/resend).
func (h *Handlers) ResendHandoff(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	msg, err := h.resender.ResendHandoff(c.Request().Context(), view.CurrentUser(c), id)
	if err != nil {
		return err
	}
	h.views.Flash(c, "success", "The link is on its way to "+msg.To+" again.")
	return c.Redirect(http.StatusSeeOther, applications.Path(id)+"#submitted")
}
