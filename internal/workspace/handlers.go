package workspace

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/httpx"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/view"
)

// Handlers serves the dashboard and the application workspace.
type Handlers struct {
	service *Service
	views   *view.Renderer
}

// NewHandlers returns the workspace handlers.
func NewHandlers(service *Service, views *view.Renderer) *Handlers {
	return &Handlers{service: service, views: views}
}

// Create starts a new application owned by the signed-in user and opens it.
func (h *Handlers) Create(c echo.Context) error {
	a, err := h.service.Create(c.Request().Context(), view.CurrentUser(c))
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, applications.Path(a.ID))
}

// Show renders the workspace of one application.
func (h *Handlers) Show(c echo.Context) error {
	ctx, u := c.Request().Context(), view.CurrentUser(c)
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	rec, err := h.service.Load(ctx, u, id)
	if err != nil {
		return err
	}
	form, errs := h.service.FormValues(rec)
	page, err := h.page(ctx, u, rec, form, errs)
	if err != nil {
		return err
	}
	page.ChooseStep(c.QueryParam("step"))
	return h.render(c, http.StatusOK, page)
}

// Review renders the review step alone: everything entered, grouped by section, for htmx to
// refresh it when the step is shown.
func (h *Handlers) Review(c echo.Context) error {
	ctx, u := c.Request().Context(), view.CurrentUser(c)
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	rec, err := h.service.Load(ctx, u, id)
	if err != nil {
		return err
	}
	form, errs := h.service.FormValues(rec)
	page, err := h.page(ctx, u, rec, form, errs)
	if err != nil {
		return err
	}
	page.ChooseStep(StepReview)
	return h.views.Fragment(c, http.StatusOK, "applications/review", page)
}

// SaveSection saves one section: the htmx autosave and the section's Save button both post
// here. htmx gets the section's fragment back (422 with messages beside the fields when some
// value was refused); a plain form post gets post/redirect/get, or the whole page again with
// the messages.
func (h *Handlers) SaveSection(c echo.Context) error {
	ctx, u := c.Request().Context(), view.CurrentUser(c)
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	values, err := c.FormParams()
	if err != nil {
		return apperr.Wrap(apperr.KindInvalid, err, "The form could not be read; reload the page and try again.")
	}
	in := drafts.BindSection(c.Param("section"), values)
	res, err := h.service.SaveSection(ctx, u, id, in)
	var stale *StaleError
	if errors.As(err, &stale) && !httpx.IsHTMX(c) && stale.Shown != nil {
		return h.renderConflict(c, stale, err)
	}
	if err != nil {
		return err
	}
	status := http.StatusOK
	if res.Invalid(in.Section) {
		status = http.StatusUnprocessableEntity
	}
	if httpx.IsHTMX(c) {
		c.Response().Header().Set("HX-Trigger", httpx.EventApplicationChanged)
		return h.renderSection(c, status, res, in.Section)
	}
	if status == http.StatusOK {
		h.views.Flash(c, "success", drafts.SectionTitle(in.Section)+" saved.")
		next := in.Section
		if n := c.FormValue("next"); IsStep(n) {
			next = n // "Save and continue"
		}
		return c.Redirect(http.StatusSeeOther, applications.Path(res.Record.App.ID)+"?step="+next)
	}
	page, err := h.page(ctx, u, res.Record, res.Shown, res.Errors)
	if err != nil {
		return err
	}
	page.ChooseStep(in.Section)
	page.Summary = drafts.Sorted(res.SectionErrors(in.Section))
	return h.render(c, status, page)
}

// renderSection answers an autosave with the section's fragment, its save notice, and the
// new version for the other sections' forms.
func (h *Handlers) renderSection(c echo.Context, status int, res *SaveResult, section string) error {
	page := &EditPage{
		App: res.Record.App, Form: res.Shown, Errors: res.Errors, IsAdmin: view.CurrentUser(c).IsAdmin(),
		Editable: true, Section: section, Workspace: &Workspace{}, Step: section,
		Notice: &SaveNotice{At: res.At, Held: len(res.Held), Problems: len(res.SectionErrors(section)), Note: res.Note},
	}
	if _, i, ok := res.Shown.Owner(res.AddedOwner); ok {
		page.Focus = drafts.OwnerField(i, "first_name")
	}
	if section == drafts.SectionPricing {
		opts, err := h.service.PricingOptions(c.Request().Context(), res.Record.App)
		if err != nil {
			return err
		}
		page.Workspace.Pricing = opts
	}
	return h.views.Fragment(c, status, "applications/autosave", page)
}

// renderConflict shows the whole page again after a save refused as stale, with the typed
// values and the current version, so that saving again is a deliberate overwrite.
func (h *Handlers) renderConflict(c echo.Context, stale *StaleError, err error) error {
	ctx, u := c.Request().Context(), view.CurrentUser(c)
	rec, lerr := h.service.Load(ctx, u, stale.Current.ID)
	if lerr != nil {
		return lerr
	}
	page, perr := h.page(ctx, u, rec, *stale.Shown, h.service.validate(*stale.Shown))
	if perr != nil {
		return perr
	}
	msg := apperr.MessageOf(err) + " What you typed is still here, not saved: Save again to replace that change with yours."
	section := c.Param("section")
	page.ChooseStep(section)
	// The message goes beside each field whose value differs from the one saved elsewhere;
	// at the top only when no field does (the other change was elsewhere in the section).
	conflicts := conflictingFields(*stale.Shown, rec.Draft, section)
	for _, f := range conflicts {
		page.Errors[f] = msg
	}
	if len(conflicts) == 0 {
		page.Conflict = msg
	}
	return h.render(c, http.StatusConflict, page)
}

// Checklist renders the readiness checklist alone, for htmx to refresh it after a change.
func (h *Handlers) Checklist(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	rec, list, err := h.service.Checklist(c.Request().Context(), view.CurrentUser(c), id)
	if err != nil {
		return err
	}
	current := c.QueryParam("step")
	if !IsStep(current) {
		current = ""
	}
	return h.views.Fragment(c, http.StatusOK, "applications/checklist-refresh", &ChecklistView{App: rec.App, Checklist: list, Current: current})
}

// History renders the audit trail alone, for htmx to refresh it after a change.
func (h *Handlers) History(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	entries, err := h.service.History(c.Request().Context(), view.CurrentUser(c), id)
	if err != nil {
		return err
	}
	return h.views.Fragment(c, http.StatusOK, "applications/history", &HistoryView{AppID: id, History: entries})
}

// HistoryView is the data of the history fragment.
type HistoryView struct {
	AppID   uuid.UUID
	History []audit.HistoryEntry
}

// page assembles the workspace page around the values to show.
func (h *Handlers) page(ctx context.Context, u *models.User, rec *applications.Record, form drafts.Draft, errs drafts.FieldErrors) (*EditPage, error) {
	ws, err := h.service.Workspace(ctx, u, rec)
	if err != nil {
		return nil, err
	}
	p := &EditPage{App: rec.App, Form: form, Errors: errs, Workspace: ws, IsAdmin: u.IsAdmin(), Editable: true}
	if err := applications.CheckEditable(rec.App); err != nil {
		p.Editable, p.LockReason = false, apperr.MessageOf(err)
	}
	return p, nil
}

func (h *Handlers) render(c echo.Context, status int, page *EditPage) error {
	return h.views.Page(c, status, "applications/edit", page.Title(), page)
}

// conflictingFields lists the fields of a section whose value as typed differs from the
// value stored now. A masked personal number was not typed, so it never conflicts.
func conflictingFields(typed, stored drafts.Draft, section string) []string {
	var out []string
	for _, f := range typed.FieldNames() {
		if drafts.SectionOf(f) != section {
			continue
		}
		v, _ := typed.Get(f)
		if strings.HasPrefix(v, maskPrefix) {
			continue
		}
		if w, _ := stored.Get(f); v != w {
			out = append(out, f)
		}
	}
	return out
}
