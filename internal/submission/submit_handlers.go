package submission

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/httpx"
	"github.com/payportal/portal/internal/view"
)

// Handlers serve submitting an application and its live progress.
type Handlers struct {
	submissions *Submissions
	views       *view.Renderer
}

// NewHandlers returns the submission handlers.
func NewHandlers(s *Submissions, views *view.Renderer) *Handlers {
	return &Handlers{submissions: s, views: views}
}

// Submit sends a complete application upstream (POST /applications/:id/submit)
// and goes back to its page, which shows the push's progress.
func (h *Handlers) Submit(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	if err := h.submissions.Submit(c.Request().Context(), view.CurrentUser(c), id); err != nil {
		return err
	}
	h.views.Flash(c, "success", "Submitted. The application is on its way to the processor; the merchant gets an e-mail with their link as soon as it is ready.")
	return c.Redirect(http.StatusSeeOther, applications.Path(id)+"#submission")
}

// Progress renders the push's steps (GET /applications/:id/progress), for the
// page's poll. While the push runs and nothing changed since the poll's
// fingerprint (?seen=), it answers 204 so htmx leaves the page alone. When
// the push has finished, it tells the page (application-changed) so the
// checklist and the history refresh too.
func (h *Handlers) Progress(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	v, err := h.submissions.Progress(c.Request().Context(), view.CurrentUser(c), id)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	if v == nil {
		return c.NoContent(http.StatusNoContent)
	}
	if v.Progress.Running() && c.QueryParam("seen") == v.Fingerprint() {
		return c.NoContent(http.StatusNoContent)
	}
	if !v.Progress.Running() && httpx.IsHTMX(c) {
		c.Response().Header().Set("HX-Trigger", httpx.EventApplicationChanged)
	}
	return h.views.Fragment(c, http.StatusOK, "applications/progress", v)
}
