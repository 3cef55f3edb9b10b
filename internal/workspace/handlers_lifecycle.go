package workspace

import (
	"net/http"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/httpx"
	"github.com/payportal/portal/internal/view"
)

// Delete soft-deletes an application (its owner or an admin).
func (h *Handlers) Delete(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	if err := h.service.Delete(c.Request().Context(), view.CurrentUser(c), id); err != nil {
		return err
	}
	msg := "Application deleted."
	if !view.CurrentUser(c).IsAdmin() {
		msg += " An admin can restore it if this was a mistake."
	}
	h.views.Flash(c, "success", msg)
	return c.Redirect(http.StatusSeeOther, "/")
}

// Restore brings back a deleted application (admins).
func (h *Handlers) Restore(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	if err := h.service.Restore(c.Request().Context(), view.CurrentUser(c), id); err != nil {
		return err
	}
	h.views.Flash(c, "success", "Application restored.")
	return c.Redirect(http.StatusSeeOther, applications.Path(id))
}

// Reassign hands an application to another user (admins).
func (h *Handlers) Reassign(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	to, err := uuid.Parse(c.FormValue("owner_id"))
	if err != nil {
		to = uuid.Nil // refused by the service as "choose an active user", after the visibility check
	}
	if err := h.service.Reassign(c.Request().Context(), view.CurrentUser(c), id, to); err != nil {
		return err
	}
	h.views.Flash(c, "success", "Application reassigned.")
	return c.Redirect(http.StatusSeeOther, applications.Path(id))
}

// RevealView is the data of a revealed value, as an htmx fragment or a page.
type RevealView struct {
	AppID    uuid.UUID
	Revealed *Revealed
	Label    string
}

// Reveal shows an admin one personal-data value, on an explicit POST that is audited. The
// value is only ever in this response's body: never in a URL, a log or an error.
func (h *Handlers) Reveal(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	r, err := h.service.Reveal(c.Request().Context(), view.CurrentUser(c), id, c.FormValue("field"))
	if err != nil {
		return err
	}
	group, label := drafts.ChangeLabel(r.Field)
	if group == drafts.SectionTitle(drafts.SectionOf(r.Field)) {
		group = ""
	}
	data := &RevealView{AppID: id, Revealed: r, Label: joinNonEmpty(group, label)}
	if httpx.IsHTMX(c) {
		c.Response().Header().Set("HX-Trigger", httpx.EventApplicationChanged)
		return h.views.Fragment(c, http.StatusOK, "applications/revealed", data)
	}
	return h.views.Page(c, http.StatusOK, "applications/reveal", "Revealed "+data.Label, data)
}

func joinNonEmpty(a, b string) string {
	if a == "" {
		return b
	}
	return a + " " + b
}
