package partnerapi

import (
	"errors"
	"io"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/documents"
	"github.com/payportal/portal/internal/models"
)

// The multipart fields of an upload.
const (
	formType = "type"
	formFile = "file"
)

// ListDocuments answers an application's documents and the types its pricing model
// requires.
func (h *Handlers) ListDocuments(c echo.Context) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	o, err := h.d.Documents.Overview(c.Request().Context(), viewer(principalOf(c)), id)
	if err != nil {
		return err
	}
	data := make([]any, len(o.Documents))
	for i := range o.Documents {
		data[i] = documentBody(&o.Documents[i])
	}
	required := append([]string{}, o.RequiredTypes...)
	return ok(c, http.StatusOK, map[string]any{"data": data, "requiredTypes": required, "editable": o.EditError == nil})
}

// UploadDocument attaches a file of a type to a draft (multipart: type, then file), with
// the page's checks of size and content.
func (h *Handlers) UploadDocument(c echo.Context) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	actor, err := h.actorFor(ctx, principalOf(c), id)
	if err != nil {
		return err
	}
	a, err := h.d.Documents.Editable(ctx, actor, id)
	if err != nil {
		return err
	}
	if err := checkMediaType(c.Request(), []string{echo.MIMEMultipartForm}); err != nil {
		return err
	}
	fields := url.Values{}
	var doc *models.Document
	err = documents.ReadUpload(c.Response(), c.Request(), h.d.Documents.MaxBytes(), fields, func(file io.Reader, name string) error {
		var err error
		doc, err = h.d.Documents.Attach(ctx, actor, a, fields.Get(formType), file, name)
		return err
	})
	var rejected *documents.RejectedError
	switch {
	case errors.As(err, &rejected) && rejected.Reason == documents.ReasonTooLarge:
		return problem(http.StatusRequestEntityTooLarge, CodeTooLarge, rejected.Message)
	case errors.As(err, &rejected):
		return invalid(map[string]string{"/file": rejected.Message})
	case err != nil:
		return err
	}
	c.Response().Header().Set(echo.HeaderLocation, "/api/v1/applications/"+id.String()+"/documents/"+doc.ID.String())
	return ok(c, http.StatusCreated, documentBody(doc))
}

// DeleteDocument removes a document of a draft (before submission, as on the page).
func (h *Handlers) DeleteDocument(c echo.Context) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	docID, err := idParam(c, "documentId")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	actor, err := h.actorFor(ctx, principalOf(c), id)
	if err != nil {
		return err
	}
	if _, err := h.d.Documents.Delete(ctx, actor, id, docID); err != nil {
		return err
	}
	return noContent(c)
}

// documentBody is a document as the API shows it: never its bytes or storage key.
func documentBody(d *models.Document) map[string]any {
	return map[string]any{"id": d.ID, "type": d.DocType, "typeLabel": documentLabel(d.DocType), "fileName": d.DisplayName,
		"contentType": d.ContentType, "sizeBytes": d.SizeBytes, "sha256": d.SHA256, "createdAt": ts(d.CreatedAt),
		"processorStatus": d.UpstreamStatus}
}

func documentLabel(code string) string {
	for _, t := range documents.DocumentTypes {
		if t.Code == code {
			return t.Label
		}
	}
	return code
}
