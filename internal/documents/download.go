package documents

import (
	"io"
	"mime"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/httpx"
	"github.com/payportal/portal/internal/view"
)

// Content-Security-Policy of served documents. The bytes were checked to be
// a PDF or an image, but the response is still locked down in case a
// browser treats them otherwise: nothing may load but the document itself.
const (
	// imageCSP sandboxes the page the browser builds around an image (it
	// needs inline styles to centre it).
	imageCSP = "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'; sandbox"
	// pdfCSP has no sandbox: Chrome and Firefox refuse to start their PDF
	// viewers in a sandboxed document, and Chrome's viewer page needs inline
	// styles and its own embed. PDF scripts run inside the viewer, never with
	// the portal's origin.
	pdfCSP = "default-src 'none'; object-src 'self'; img-src 'self' data:; style-src 'unsafe-inline'; frame-ancestors 'none'; form-action 'none'; base-uri 'none'"
	// downloadCSP applies to attachments, which browsers save, not show.
	downloadCSP = "default-src 'none'; frame-ancestors 'none'; sandbox"
)

// Preview shows a document in the browser when it can (PDF, PNG, JPEG) and
// downloads it otherwise.
func (h *Handlers) Preview(c echo.Context) error { return h.serve(c, true) }

// Download saves a document under its display name.
func (h *Handlers) Download(c echo.Context) error { return h.serve(c, false) }

func (h *Handlers) serve(c echo.Context, inline bool) error {
	appID, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	docID, err := httpx.UUIDParam(c, "doc")
	if err != nil {
		return err
	}
	o, err := h.svc.Open(c.Request().Context(), view.CurrentUser(c), appID, docID)
	if err != nil {
		return err
	}
	defer o.Body.Close()
	doc := o.Document
	inline = inline && previewable(doc.ContentType)

	hdr := c.Response().Header()
	hdr.Set("Content-Type", doc.ContentType)
	hdr.Set("Content-Length", strconv.FormatInt(doc.SizeBytes, 10))
	hdr.Set("Content-Disposition", contentDisposition(inline, DownloadName(doc.DisplayName, doc.ContentType)))
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Content-Security-Policy", servedCSP(inline, doc.ContentType))
	hdr.Set("Cache-Control", "private, no-store")
	hdr.Set("Cross-Origin-Resource-Policy", "same-origin")
	c.Response().WriteHeader(http.StatusOK)
	if c.Request().Method == http.MethodHead {
		return nil
	}
	if _, err := io.Copy(c.Response(), o.Body); err != nil {
		// The headers are gone; all that is left is to note it.
		h.log.Warn("serving document stopped", "document_id", doc.ID, "err", err)
	}
	return nil
}

// contentDisposition names the file for the browser, with the sanitised
// display name encoded as RFC 2231 requires when it is not plain ASCII.
func contentDisposition(inline bool, name string) string {
	kind := "attachment"
	if inline {
		kind = "inline"
	}
	if v := mime.FormatMediaType(kind, map[string]string{"filename": name}); v != "" {
		return v
	}
	return kind
}

func servedCSP(inline bool, contentType string) string {
	switch {
	case !inline:
		return downloadCSP
	case contentType == ContentTypePDF:
		return pdfCSP
	}
	return imageCSP
}
