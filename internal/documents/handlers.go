package documents

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/httpx"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/view"
)

// ChangedEvent is the htmx event a change to an application's documents
// triggers on the page (through the HX-Trigger header, or from uploads.js),
// so the document list reloads itself.
const ChangedEvent = "documents-changed"

// changedTrigger is the HX-Trigger value of a successful change. The events
// (the list's, and the application page's own: the readiness checklist and
// the history show documents too) are raised on <body> itself: the element that sent the request may have
// been swapped out by a reload meanwhile, and an event raised on a detached
// element never reaches the listeners.
const changedTrigger = `{"` + ChangedEvent + `":{"target":"body"},"` + httpx.EventApplicationChanged + `":{"target":"body"}}`

// Handlers serve the documents section of an application page.
type Handlers struct {
	svc   *Service
	views *view.Renderer
	log   *slog.Logger
}

// NewHandlers returns the documents handlers.
func NewHandlers(svc *Service, views *view.Renderer, log *slog.Logger) *Handlers {
	return &Handlers{svc: svc, views: views, log: log}
}

// Section shows the documents section: the fragment the application page
// loads with htmx, or a whole page for browsers without JavaScript.
//
// After an upload too large to read (see TooLargeRedirect), the page states the limit
// at the field the file was chosen in.
func (h *Handlers) Section(c echo.Context) error {
	form := uploadForm{}
	if c.QueryParam(refusedParam) == refusedTooLarge {
		form.FileError = rejectOverLimit(h.svc.MaxBytes()).Error()
		if code := c.QueryParam("slot"); IsDocumentType(code) {
			form.DocType, form.Slot = code, true
		}
		if id, err := uuid.Parse(c.QueryParam("doc")); err == nil {
			form.ReplaceID = id
		}
	}
	return h.renderSection(c, http.StatusOK, form)
}

// refusedParam and refusedTooLarge mark the documents page shown again after an upload
// too large to read.
const (
	refusedParam    = "refused"
	refusedTooLarge = "too-large"
)

// TooLargeRedirect is where the browser goes back to after a document upload (or a
// replacement) larger than the portal reads, sent without JavaScript: the documents page,
// saying so at the field. The slot the file was chosen in is in the form's address
// (?slot=), since the body is not read. Other requests are not its business.
func TooLargeRedirect(c echo.Context) (string, bool) {
	appID, err := uuid.Parse(c.Param("id"))
	if err != nil || c.Request().Method != http.MethodPost {
		return "", false
	}
	q := url.Values{refusedParam: {refusedTooLarge}}
	switch c.Path() {
	case "/applications/:id/documents":
		if code := c.QueryParam("slot"); IsDocumentType(code) {
			q.Set("slot", code)
		}
	case "/applications/:id/documents/:doc/replace":
		docID, err := uuid.Parse(c.Param("doc"))
		if err != nil {
			return "", false
		}
		q.Set("doc", docID.String())
	default:
		return "", false
	}
	return SectionPath(appID) + "?" + q.Encode(), true
}

// List is the document list alone, reloaded after every change.
func (h *Handlers) List(c echo.Context) error {
	data, err := h.sectionData(c, uploadForm{})
	if err != nil {
		return err
	}
	return h.views.Fragment(c, http.StatusOK, "documents/list-refresh", data)
}

// Upload attaches a new document. The body streams into storage; the
// application is checked before a byte of it is read.
func (h *Handlers) Upload(c echo.Context) error {
	ctx, u := c.Request().Context(), view.CurrentUser(c)
	appID, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	a, err := h.svc.Editable(ctx, u, appID)
	if err != nil {
		return err
	}
	fields := url.Values{}
	var doc *models.Document
	err = readUpload(c.Response(), c.Request(), h.svc.MaxBytes(), fields, func(file io.Reader, name string) error {
		added, err := h.svc.Attach(ctx, u, a, fields.Get(FieldDocType), file, name)
		doc = added
		return err
	})
	if err != nil {
		return h.refused(c, uploadForm{DocType: fields.Get(FieldDocType), Slot: fields.Get("slot") == "true"}, err)
	}
	return h.changed(c, a.ID, http.StatusCreated, "Uploaded "+doc.DisplayName+".")
}

// Replace stores a new file in place of a document, keeping its type.
func (h *Handlers) Replace(c echo.Context) error {
	ctx, u := c.Request().Context(), view.CurrentUser(c)
	appID, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	docID, err := httpx.UUIDParam(c, "doc")
	if err != nil {
		return err
	}
	a, err := h.svc.Editable(ctx, u, appID)
	if err != nil {
		return err
	}
	old, err := h.svc.Current(ctx, a, docID)
	if err != nil {
		return err
	}
	var doc *models.Document
	err = readUpload(c.Response(), c.Request(), h.svc.MaxBytes(), url.Values{}, func(file io.Reader, name string) error {
		replacement, err := h.svc.Replace(ctx, u, a, old, file, name)
		doc = replacement
		return err
	})
	if err != nil {
		return h.refused(c, uploadForm{ReplaceID: old.ID}, err)
	}
	return h.changed(c, a.ID, http.StatusCreated, "Replaced "+old.DisplayName+" with "+doc.DisplayName+".")
}

// Delete removes a document from a draft application.
func (h *Handlers) Delete(c echo.Context) error {
	appID, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	docID, err := httpx.UUIDParam(c, "doc")
	if err != nil {
		return err
	}
	doc, err := h.svc.Delete(c.Request().Context(), view.CurrentUser(c), appID, docID)
	if err != nil {
		return err
	}
	return h.changed(c, appID, http.StatusOK, "Deleted "+doc.DisplayName+".")
}

// refused answers a refused upload: the message alone for the page's script
// (which shows it beside the file), or the whole page again with the message
// beside the field. Other failures go to the error handler.
func (h *Handlers) refused(c echo.Context, form uploadForm, err error) error {
	var rejected *RejectedError
	fields, invalid := apperr.FieldsOf(err)
	switch {
	case errors.As(err, &rejected):
		form.setError(FieldFile, rejected.Message)
	case invalid:
		for field, msg := range fields {
			form.setError(field, msg)
		}
	case apperr.KindOf(err) == apperr.KindMalformed:
		return echo.NewHTTPError(http.StatusBadRequest, apperr.MessageOf(err))
	case errors.Is(err, errInterrupted):
		// The browser is usually gone; nothing was kept.
		h.log.Info("document upload interrupted", "path", c.Path(), "err", err)
		return echo.NewHTTPError(http.StatusBadRequest, "The upload stopped before the whole file arrived. Nothing was saved; try again.")
	default:
		return err
	}
	if httpx.IsHTMX(c) {
		return c.String(http.StatusUnprocessableEntity, form.message())
	}
	return h.renderSection(c, http.StatusUnprocessableEntity, form)
}

// changed answers a successful change: for the page's script or htmx, a
// short text and the event that reloads the list and the checklist; for a
// plain form, a flash and a redirect to the documents page.
func (h *Handlers) changed(c echo.Context, appID uuid.UUID, status int, message string) error {
	if httpx.IsHTMX(c) {
		c.Response().Header().Set("HX-Trigger", changedTrigger)
		return c.String(status, message)
	}
	h.views.Flash(c, "success", message)
	return c.Redirect(http.StatusSeeOther, SectionPath(appID))
}

// renderSection shows the section as a fragment for htmx or as a page.
func (h *Handlers) renderSection(c echo.Context, status int, form uploadForm) error {
	data, err := h.sectionData(c, form)
	if err != nil {
		return err
	}
	if httpx.IsHTMX(c) {
		return h.views.Fragment(c, status, "documents/section", data)
	}
	return h.views.Page(c, status, "documents/index", "Documents", data)
}

func (h *Handlers) sectionData(c echo.Context, form uploadForm) (*sectionData, error) {
	appID, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return nil, err
	}
	o, err := h.svc.Overview(c.Request().Context(), view.CurrentUser(c), appID)
	if err != nil {
		return nil, err
	}
	return newSectionData(o, h.svc.MaxBytes(), form), nil
}

// SectionPath is the address of an application's documents section.
func SectionPath(appID uuid.UUID) string {
	return "/applications/" + appID.String() + "/documents"
}
