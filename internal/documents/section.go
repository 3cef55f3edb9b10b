package documents

import (
	"github.com/google/uuid"

	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/models"
)

// sectionData is what the documents templates show (the page's .Data).
type sectionData struct {
	App       *models.Application
	Documents []documentRow
	// Slots are the document types the pricing model requires, each with
	// the anchor the readiness checklist links to.
	Slots    []slot
	Types    []DocumentType
	Editable bool
	// EditBlock says why documents cannot change now.
	EditBlock string
	Accept    string
	MaxBytes  int64
	MaxLabel  string
	Form      uploadForm
}

// documentRow is one document with the words the list shows.
type documentRow struct {
	models.Document
	TypeLabel   string
	SizeLabel   string
	Previewable bool
	// Upstream says whether the processor has the file, in plain words.
	Upstream string
}

// slot is a required document type, whether one is uploaded, and the files of that type.
type slot struct {
	Code, Label, Anchor string
	Uploaded            bool
	Files               []string
}

// uploadForm keeps what the person chose and the messages to show beside
// the fields when an upload is refused.
type uploadForm struct {
	DocType   string
	TypeError string
	FileError string
	// ReplaceID names the document whose replacement was refused; its
	// message is in FileError.
	ReplaceID uuid.UUID
	// Slot says the upload came from the slot of DocType, where its message shows.
	Slot bool
}

func (f *uploadForm) setError(field, message string) {
	if field == FieldDocType {
		f.TypeError = message
		return
	}
	f.FileError = message
}

// NewFileError is the message beside the new-document file input.
func (f uploadForm) NewFileError() string {
	if f.ReplaceID != uuid.Nil || f.Slot {
		return ""
	}
	return f.FileError
}

// SlotError is the message beside the file input of the slot of a required type.
func (f uploadForm) SlotError(code string) string {
	if !f.Slot || f.DocType != code {
		return ""
	}
	if f.FileError != "" {
		return f.FileError
	}
	return f.TypeError
}

// ReplaceError is the message beside the replace input of document id.
func (f uploadForm) ReplaceError(id uuid.UUID) string {
	if f.ReplaceID != id {
		return ""
	}
	return f.FileError
}

// message is the one message the page's script shows for a refused upload.
func (f *uploadForm) message() string {
	if f.TypeError != "" {
		return f.TypeError
	}
	return f.FileError
}

func newSectionData(o *Overview, maxBytes int64, form uploadForm) *sectionData {
	d := &sectionData{
		App: o.Application, Types: DocumentTypes, Editable: o.EditError == nil,
		Accept: AcceptedFileTypes, MaxBytes: maxBytes, MaxLabel: formatSize(maxBytes, false), Form: form,
	}
	if o.EditError != nil {
		d.EditBlock = o.EditError.Error()
	}
	uploaded := map[string][]string{}
	for _, doc := range o.Documents {
		uploaded[doc.DocType] = append(uploaded[doc.DocType], doc.DisplayName)
		d.Documents = append(d.Documents, documentRow{
			Document:    doc,
			TypeLabel:   DocumentTypeLabel(doc.DocType),
			SizeLabel:   formatSize(doc.SizeBytes, false),
			Previewable: previewable(doc.ContentType),
			Upstream:    upstreamWords(doc),
		})
	}
	seen := map[string]bool{}
	for _, code := range o.RequiredTypes {
		if code == "" || seen[code] {
			continue
		}
		seen[code] = true
		d.Slots = append(d.Slots, slot{
			Code: code, Label: DocumentTypeLabel(code), Anchor: drafts.DocumentField(code),
			Uploaded: len(uploaded[code]) > 0, Files: uploaded[code],
		})
	}
	return d
}

// upstreamWords says where a document stands with the processor.
func upstreamWords(d models.Document) string {
	switch d.UpstreamStatus {
	case UpstreamUploading:
		return "Sending"
	case UpstreamUploaded:
		return "Sent"
	case UpstreamFailed:
		if d.UpstreamError != nil && *d.UpstreamError != "" {
			return "Not sent: " + *d.UpstreamError
		}
		return "Not sent"
	}
	return "Not sent yet"
}

// previewable reports whether browsers show the type themselves. TIFF and
// HEIC open only in some browsers, so they are offered as downloads.
func previewable(contentType string) bool {
	switch contentType {
	case ContentTypePDF, ContentTypePNG, ContentTypeJPEG:
		return true
	}
	return false
}
