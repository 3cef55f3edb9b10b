package imports

import (
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/httpx"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/view"
)

// Handlers serve the import pages.
type Handlers struct {
	svc   *Service
	views *view.Renderer
}

// NewHandlers returns the import's handlers.
func NewHandlers(svc *Service, views *view.Renderer) *Handlers {
	return &Handlers{svc: svc, views: views}
}

// indexPage is the data of the upload page.
type indexPage struct {
	Owners  []models.User
	Owner   string
	Recent  []Batch
	Errors  apperr.FieldErrors
	Problem string
	MaxRows int
	MaxMiB  int
}

// Index shows the upload form, the template and the user's recent imports (GET /imports).
func (h *Handlers) Index(c echo.Context) error {
	return h.renderIndex(c, http.StatusOK, indexPage{})
}

func (h *Handlers) renderIndex(c echo.Context, status int, p indexPage) error {
	ctx, u := c.Request().Context(), view.CurrentUser(c)
	var err error
	if p.Owners, err = h.svc.Owners(ctx, u); err != nil {
		return err
	}
	if p.Owner == "" {
		p.Owner = u.ID.String()
	}
	if p.Recent, err = h.svc.Recent(ctx, u); err != nil {
		return err
	}
	p.MaxRows, p.MaxMiB = MaxRows, MaxFileBytes>>20
	return h.views.Page(c, status, "imports/index", "Import drafts", p)
}

// Template downloads the template's header row (GET /imports/template.csv).
func (h *Handlers) Template(c echo.Context) error {
	setDownload(c, "drafts-import-template.csv")
	c.Response().WriteHeader(http.StatusOK)
	return Template(c.Response())
}

// Upload reads an uploaded file (POST /imports). The page's script sends it with a
// progress bar and asks for JSON; a form posted without JavaScript gets pages.
func (h *Handlers) Upload(c echo.Context) error {
	ctx, u := c.Request().Context(), view.CurrentUser(c)
	fields := url.Values{}
	var b *Batch
	err := readUpload(c.Response(), c.Request(), fields, func(file io.Reader, name string) error {
		var err error
		b, err = h.svc.Upload(ctx, u, fields.Get(FieldOwner), name, file)
		return err
	})
	if err != nil {
		errs, ok := apperr.FieldsOf(err)
		if !ok && apperr.KindOf(err) == apperr.KindInvalid {
			errs, ok = apperr.FieldErrors{FieldFile: apperr.MessageOf(err)}, true
		}
		if !ok {
			return err
		}
		if wantsJSON(c) {
			return c.JSON(http.StatusUnprocessableEntity, map[string]any{"errors": errs})
		}
		return h.renderIndex(c, http.StatusUnprocessableEntity, indexPage{Errors: errs, Owner: fields.Get(FieldOwner)})
	}
	location := batchPath(b)
	if wantsJSON(c) {
		return c.JSON(http.StatusCreated, map[string]string{"location": location})
	}
	return c.Redirect(http.StatusSeeOther, location)
}

func wantsJSON(c echo.Context) bool { return c.Request().Header.Get("Accept") == "application/json" }

func batchPath(b *Batch) string { return "/imports/" + b.ID.String() }

// batchPage is the data of a batch's page: its mapping, preview or import.
type batchPage struct {
	Preview  *Preview
	Progress *Progress
	Columns  []Column
	// Mapping shows the mapping form (a batch waiting for it, or asked for again).
	Mapping bool
	// Form is the mapping as typed; Errors its messages by "column.N".
	Form   []string
	Errors apperr.FieldErrors
}

// Show shows a batch (GET /imports/:id): the mapping, the preview, or the import's
// progress and outcome.
func (h *Handlers) Show(c echo.Context) error {
	page, _ := strconv.Atoi(c.QueryParam("page"))
	return h.renderBatch(c, http.StatusOK, page, c.QueryParam("mapping") != "", nil, nil)
}

func (h *Handlers) renderBatch(c echo.Context, status, page int, mapping bool, form []string, errs apperr.FieldErrors) error {
	ctx, u := c.Request().Context(), view.CurrentUser(c)
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	p, err := h.svc.Preview(ctx, u, id, page)
	if err != nil {
		return err
	}
	data := batchPage{Preview: p, Columns: Columns(), Form: form, Errors: errs,
		Mapping: p.Batch.Status == StatusMapping || (mapping && p.Batch.Status == StatusPreview)}
	if data.Form == nil {
		data.Form = p.Batch.Mapping
	}
	if p.Batch.Status == StatusImporting || p.Batch.Status == StatusDone {
		data.Progress = &Progress{Batch: p.Batch, Counts: p.Counts}
	}
	return h.views.Page(c, status, "imports/batch", "Import of "+p.Batch.FileName, data)
}

// SaveMapping stores the mapping typed (POST /imports/:id/mapping).
func (h *Handlers) SaveMapping(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	values, err := c.FormParams()
	if err != nil {
		return err
	}
	// A count that is missing, not a number or out of bounds leaves the mapping empty;
	// the service, once it has checked the batch is the user's, refuses it (400).
	var mapping []string
	if n, err := strconv.Atoi(values.Get("columns")); err == nil && n >= 0 && n <= maxColumns {
		mapping = make([]string, n)
		for i := range mapping {
			mapping[i] = values.Get(columnKey(i))
		}
	}
	err = h.svc.SaveMapping(c.Request().Context(), view.CurrentUser(c), id, mapping)
	if errs, ok := apperr.FieldsOf(err); ok {
		return h.renderBatch(c, http.StatusUnprocessableEntity, 1, true, mapping, errs)
	}
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/imports/"+id.String())
}

// Start imports the batch (POST /imports/:id/import).
func (h *Handlers) Start(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	err = h.svc.Start(c.Request().Context(), view.CurrentUser(c), id, c.FormValue(FieldOnDuplicate))
	if errs, ok := apperr.FieldsOf(err); ok {
		return h.renderBatch(c, http.StatusUnprocessableEntity, 1, false, nil, errs)
	}
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/imports/"+id.String())
}

// Progress is the import's progress bar, polled while it runs
// (GET /imports/:id/progress?seen=<fingerprint>): 204 while nothing changed.
func (h *Handlers) Progress(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	p, err := h.svc.Progress(c.Request().Context(), view.CurrentUser(c), id)
	if err != nil {
		return err
	}
	if p.Running() && c.QueryParam("seen") == p.Fingerprint() {
		return c.NoContent(http.StatusNoContent)
	}
	if !p.Running() && httpx.IsHTMX(c) {
		// Finished: the whole page shows the outcome.
		c.Response().Header().Set("HX-Refresh", "true")
	}
	return h.views.Fragment(c, http.StatusOK, "imports/progress", p)
}

// Rejected downloads the rows not imported, with why (GET /imports/:id/rejected.csv).
func (h *Handlers) Rejected(c echo.Context) error {
	ctx, u := c.Request().Context(), view.CurrentUser(c)
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	b, err := h.svc.Batch(ctx, u, id)
	if err != nil {
		return err
	}
	setDownload(c, RejectedFileName(b))
	c.Response().WriteHeader(http.StatusOK)
	return h.svc.WriteRejected(ctx, u, id, c.Response())
}

func setDownload(c echo.Context, name string) {
	h := c.Response().Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
}
