package documents

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/models"
)

// Form fields of an upload.
const (
	FieldDocType = "doc_type"
	FieldFile    = "file"
)

// ErrStoredFileMissing is returned when a document's row exists but its
// bytes are not in storage (an operator removed them, or a clean-up went
// wrong).
var ErrStoredFileMissing = apperr.New(apperr.KindNotFound, "The file of this document is missing from storage. Upload it again.")

// Applications is the access documents need to the application they belong to;
// *applications.Store provides it. A rep reaches only their own applications,
// and changes need an editable one.
type Applications interface {
	// Visible loads an application u may see (q nil: the pool).
	Visible(ctx context.Context, q database.Querier, u *models.User, id uuid.UUID) (*models.Application, error)
	// Editable loads an application u may change now.
	Editable(ctx context.Context, q database.Querier, u *models.User, id uuid.UUID) (*models.Application, error)
	// LockEditable re-reads the application under a share lock inside tx and
	// refuses a change once it is no longer editable.
	LockEditable(ctx context.Context, tx pgx.Tx, id uuid.UUID) error
}

// PricingModels gives the pricing model an application uses, whose required
// document types the section shows; *pricing.Service provides it.
type PricingModels interface {
	Get(ctx context.Context, id uuid.UUID) (*models.PricingModel, error)
}

// Service attaches, replaces, deletes and serves an application's supporting
// documents. Every use case checks access through Applications.
type Service struct {
	apps    Applications
	pricing PricingModels
	docs    *Store
	storage Storage
	limits  Limits
	now     func() time.Time
	log     *slog.Logger
}

// NewService returns the documents service. limits bounds each upload; now
// stamps rows and audit entries.
func NewService(apps Applications, pricing PricingModels, docs *Store, storage Storage, limits Limits, now func() time.Time, log *slog.Logger) *Service {
	return &Service{apps: apps, pricing: pricing, docs: docs, storage: storage, limits: limits, now: now, log: log}
}

// MaxBytes is the largest file an upload may hold.
func (s *Service) MaxBytes() int64 { return s.limits.maxBytes() }

// StorageKey is where a document's bytes are kept: built from ids only,
// never from a file name.
func StorageKey(appID, docID uuid.UUID) string {
	return "documents/" + appID.String() + "/" + docID.String()
}

// CheckDocumentType refuses an empty or unknown document type.
func CheckDocumentType(docType string) error {
	switch {
	case docType == "":
		return apperr.Invalid(FieldDocType, "Choose what kind of document this is.")
	case !IsDocumentType(docType):
		return apperr.Invalid(FieldDocType, "Choose one of the listed document types.")
	}
	return nil
}

// Visible returns the application if u may see its documents.
func (s *Service) Visible(ctx context.Context, u *models.User, appID uuid.UUID) (*models.Application, error) {
	return s.apps.Visible(ctx, nil, u, appID)
}

// Editable returns the application if u may change its documents now. Call
// it before reading an upload's body, so a refusal costs no transfer.
func (s *Service) Editable(ctx context.Context, u *models.User, appID uuid.UUID) (*models.Application, error) {
	return s.apps.Editable(ctx, nil, u, appID)
}

// Overview is what the documents section of an application shows.
type Overview struct {
	Application *models.Application
	Documents   []models.Document
	// RequiredTypes are the document types the pricing model requires.
	RequiredTypes []string
	// EditError says why the documents cannot change now; nil when they can.
	EditError error
}

// Overview lists an application's documents for u.
func (s *Service) Overview(ctx context.Context, u *models.User, appID uuid.UUID) (*Overview, error) {
	a, err := s.Visible(ctx, u, appID)
	if err != nil {
		return nil, err
	}
	docs, err := s.docs.List(ctx, a.ID)
	if err != nil {
		return nil, err
	}
	required, err := s.requiredTypes(ctx, a)
	if err != nil {
		return nil, err
	}
	o := &Overview{Application: a, Documents: docs, RequiredTypes: required}
	if _, err := s.apps.Editable(ctx, nil, u, a.ID); err != nil {
		if apperr.KindOf(err) == 0 {
			return nil, err
		}
		o.EditError = err
	}
	return o, nil
}

// Current returns a current document of an application the caller has
// already loaded, or models.ErrNotFound.
func (s *Service) Current(ctx context.Context, a *models.Application, docID uuid.UUID) (*models.Document, error) {
	return s.docs.Get(ctx, a.ID, docID)
}

// Attach checks and stores an uploaded file as a new document of type
// docType on a, which the caller loaded with Editable. The row is written
// only after the bytes are stored, and the stored bytes are removed if the
// row cannot be written, so an interrupted upload leaves nothing behind.
// Refusals are *RejectedError (the file) or *apperr.ValidationError (the type).
func (s *Service) Attach(ctx context.Context, u *models.User, a *models.Application, docType string, body io.Reader, declaredName string) (*models.Document, error) {
	if err := CheckDocumentType(docType); err != nil {
		return nil, err
	}
	doc, err := s.ingest(ctx, u, a, docType, body, declaredName)
	if err != nil {
		return nil, err
	}
	err = s.docs.InTx(ctx, func(tx pgx.Tx) error {
		if err := s.apps.LockEditable(ctx, tx, a.ID); err != nil {
			return err
		}
		if err := s.docs.insert(ctx, tx, doc); err != nil {
			return err
		}
		return audit.Record(ctx, tx, s.event(u, a.ID, audit.ActionDocumentAdded, audit.DocumentDetails{
			DocumentID: doc.ID.String(), DocType: doc.DocType, DocTitle: DocumentTypeLabel(doc.DocType),
			DisplayName: doc.DisplayName, SizeBytes: doc.SizeBytes,
		}))
	})
	if err != nil {
		s.discard(ctx, doc.StorageKey)
		return nil, err
	}
	return doc, nil
}

// Replace stores an uploaded file in place of the current document old of
// a, keeping its type. The old row is soft-deleted in the same transaction
// that adds the new one; its bytes stay for the audit trail.
func (s *Service) Replace(ctx context.Context, u *models.User, a *models.Application, old *models.Document, body io.Reader, declaredName string) (*models.Document, error) {
	doc, err := s.ingest(ctx, u, a, old.DocType, body, declaredName)
	if err != nil {
		return nil, err
	}
	err = s.docs.InTx(ctx, func(tx pgx.Tx) error {
		if err := s.apps.LockEditable(ctx, tx, a.ID); err != nil {
			return err
		}
		cur, err := s.docs.lockForUpdate(ctx, tx, a.ID, old.ID)
		if err != nil {
			return err
		}
		if err := s.docs.insert(ctx, tx, doc); err != nil {
			return err
		}
		if err := s.docs.softDelete(ctx, tx, cur.ID, doc.CreatedAt); err != nil {
			return err
		}
		return audit.Record(ctx, tx, s.event(u, a.ID, audit.ActionDocumentReplaced, audit.DocumentDetails{
			DocumentID: doc.ID.String(), ReplacedDocumentID: cur.ID.String(), DocType: doc.DocType,
			DocTitle: DocumentTypeLabel(doc.DocType), DisplayName: doc.DisplayName,
			ReplacedDisplayName: cur.DisplayName, SizeBytes: doc.SizeBytes,
		}))
	})
	if err != nil {
		s.discard(ctx, doc.StorageKey)
		return nil, err
	}
	return doc, nil
}

// Delete soft-deletes a document of an editable application and returns it.
func (s *Service) Delete(ctx context.Context, u *models.User, appID, docID uuid.UUID) (*models.Document, error) {
	a, err := s.Editable(ctx, u, appID)
	if err != nil {
		return nil, err
	}
	var doc *models.Document
	err = s.docs.InTx(ctx, func(tx pgx.Tx) error {
		if err := s.apps.LockEditable(ctx, tx, a.ID); err != nil {
			return err
		}
		cur, err := s.docs.lockForUpdate(ctx, tx, a.ID, docID)
		if err != nil {
			return err
		}
		if err := s.docs.softDelete(ctx, tx, cur.ID, s.now()); err != nil {
			return err
		}
		doc = cur
		return audit.Record(ctx, tx, s.event(u, a.ID, audit.ActionDocumentDeleted, audit.DocumentDetails{
			DocumentID: cur.ID.String(), DocType: cur.DocType, DocTitle: DocumentTypeLabel(cur.DocType), DisplayName: cur.DisplayName,
		}))
	})
	return doc, err
}

// Opened is a document's bytes ready to be served. Close Body when done.
type Opened struct {
	Document *models.Document
	Body     io.ReadCloser
}

// Open returns a current document's bytes for u.
func (s *Service) Open(ctx context.Context, u *models.User, appID, docID uuid.UUID) (*Opened, error) {
	a, err := s.Visible(ctx, u, appID)
	if err != nil {
		return nil, err
	}
	doc, err := s.docs.Get(ctx, a.ID, docID)
	if err != nil {
		return nil, err
	}
	body, info, err := s.storage.Open(ctx, doc.StorageKey)
	if errors.Is(err, ErrNotFound) {
		s.log.Error("document bytes missing from storage", "document_id", doc.ID, "application_id", a.ID)
		return nil, ErrStoredFileMissing
	}
	if err != nil {
		return nil, fmt.Errorf("opening document %s: %w", doc.ID, err)
	}
	if info.Size != doc.SizeBytes {
		_ = body.Close()
		return nil, fmt.Errorf("document %s: stored object holds %d bytes, the row says %d", doc.ID, info.Size, doc.SizeBytes)
	}
	return &Opened{Document: doc, Body: body}, nil
}

// ingest stores the upload under a fresh key and returns the row to insert.
func (s *Service) ingest(ctx context.Context, u *models.User, a *models.Application, docType string, body io.Reader, declaredName string) (*models.Document, error) {
	id := uuid.New()
	key := StorageKey(a.ID, id)
	res, err := Ingest(ctx, s.storage, key, body, declaredName, s.limits)
	if err != nil {
		return nil, err
	}
	doc := &models.Document{
		ID: id, ApplicationID: a.ID, DocType: docType, DisplayName: res.DisplayName,
		ContentType: res.ContentType, SizeBytes: res.Size, SHA256: res.SHA256, StorageKey: key,
		UploadedBy: &u.ID, CreatedAt: s.now(), UpstreamStatus: UpstreamPending,
	}
	// The key the bytes were just encrypted under, so what is sealed under which key is
	// known from the start (the key ring's status and start-up check read it).
	if enc, ok := s.storage.(interface{ ActiveKeyID() string }); ok {
		keyID := enc.ActiveKeyID()
		doc.EncryptedKeyID = &keyID
	}
	return doc, nil
}

// discard removes stored bytes whose row was never written. It runs even
// when the request's context has ended, which is the usual reason it runs.
func (s *Service) discard(ctx context.Context, key string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	if err := s.storage.Delete(ctx, key); err != nil {
		s.log.Error("removing stored document without a row", "key", key, "err", err)
	}
}

// event builds an audit entry; details name the document, never its bytes.
func (s *Service) event(u *models.User, appID uuid.UUID, action string, details audit.DocumentDetails) audit.Event {
	return audit.Event{Subject: audit.Application(appID), Actor: &u.ID, Action: action, Details: details, At: s.now()}
}

// requiredTypes returns the document types the application's pricing model
// requires, in the model's order; none when no model is chosen.
func (s *Service) requiredTypes(ctx context.Context, a *models.Application) ([]string, error) {
	if a.PricingModelID == nil {
		return nil, nil
	}
	m, err := s.pricing.Get(ctx, *a.PricingModelID)
	if errors.Is(err, models.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading required document types: %w", err)
	}
	return m.RequiredDocumentTypes, nil
}
