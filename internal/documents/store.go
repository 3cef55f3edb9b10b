package documents

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/payportal/portal/internal/models"
)

// Upstream statuses of a document (documents.upstream_status).
const (
	// UpstreamPending: not yet sent to the processor.
	UpstreamPending = "pending"
	// UpstreamUploading: an attempt is under way (or was cut short by a
	// crash; the next push starts again).
	UpstreamUploading = "uploading"
	// UpstreamUploaded: the processor holds the bytes under UpstreamFileID.
	UpstreamUploaded = "uploaded"
	// UpstreamFailed: every attempt failed; UpstreamError says why.
	UpstreamFailed = "failed"
)

// Audit actions written to application_events.
const (
	ActionDocumentAdded    = "document_added"
	ActionDocumentReplaced = "document_replaced"
	ActionDocumentDeleted  = "document_deleted"
)

// Store reads and writes the documents table and the document entries of
// an application's audit trail.
type Store struct{ db *gorm.DB }

// NewStore returns a document store on db.
func NewStore(db *gorm.DB) *Store { return &Store{db: db} }

// Transaction runs fn with a store bound to one database transaction.
func (s *Store) Transaction(ctx context.Context, fn func(tx *Store) error) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		return fn(&Store{db: tx})
	})
}

// List returns an application's current documents (not deleted), oldest
// first.
func (s *Store) List(ctx context.Context, appID uuid.UUID) ([]models.Document, error) {
	var docs []models.Document
	err := s.db.WithContext(ctx).
		Where("application_id = ? AND deleted_at IS NULL", appID).
		Order("created_at, id").Find(&docs).Error
	if err != nil {
		return nil, fmt.Errorf("listing documents: %w", err)
	}
	return docs, nil
}

// Get returns a current document of the application, or models.ErrNotFound
// when it does not exist, belongs to another application or was deleted.
func (s *Store) Get(ctx context.Context, appID, docID uuid.UUID) (*models.Document, error) {
	var d models.Document
	err := s.db.WithContext(ctx).
		Where("id = ? AND application_id = ? AND deleted_at IS NULL", docID, appID).
		Take(&d).Error
	return &d, notFound(err)
}

// ByID returns a document, deleted or not, or models.ErrNotFound.
func (s *Store) ByID(ctx context.Context, docID uuid.UUID) (*models.Document, error) {
	var d models.Document
	err := s.db.WithContext(ctx).Where("id = ?", docID).Take(&d).Error
	return &d, notFound(err)
}

// lockForUpdate re-reads a current document under a row lock, so that two
// requests cannot replace or delete it at once.
func (s *Store) lockForUpdate(ctx context.Context, appID, docID uuid.UUID) (*models.Document, error) {
	var d models.Document
	err := s.db.WithContext(ctx).Clauses(clause.Locking{Strength: "UPDATE"}).
		Where("id = ? AND application_id = ? AND deleted_at IS NULL", docID, appID).
		Take(&d).Error
	return &d, notFound(err)
}

// lockApplication re-reads the application under a share lock: a change to
// its documents commits only if the application was still editable at that
// moment, and the submit workflow, which updates the row, waits for it.
func (s *Store) lockApplication(ctx context.Context, appID uuid.UUID) (*models.Application, error) {
	var a models.Application
	err := s.db.WithContext(ctx).Clauses(clause.Locking{Strength: "SHARE"}).
		Where("id = ? AND deleted_at IS NULL", appID).Take(&a).Error
	return &a, notFound(err)
}

// insert adds a document row.
func (s *Store) insert(ctx context.Context, d *models.Document) error {
	if err := s.db.WithContext(ctx).Create(d).Error; err != nil {
		return fmt.Errorf("inserting document: %w", err)
	}
	return nil
}

// softDelete marks a current document deleted; it reports models.ErrNotFound
// when the document was already gone.
func (s *Store) softDelete(ctx context.Context, docID uuid.UUID, at time.Time) error {
	res := s.db.WithContext(ctx).Model(&models.Document{}).
		Where("id = ? AND deleted_at IS NULL", docID).
		Update("deleted_at", at)
	if res.Error != nil {
		return fmt.Errorf("deleting document: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return models.ErrNotFound
	}
	return nil
}

// recordEvent appends an entry to the application's audit trail.
func (s *Store) recordEvent(ctx context.Context, e *models.ApplicationEvent) error {
	if err := s.db.WithContext(ctx).Create(e).Error; err != nil {
		return fmt.Errorf("recording %s: %w", e.Action, err)
	}
	return nil
}

// RequiredTypes returns the document types the application's pricing model
// requires, in the model's order; none when no model is chosen.
func (s *Store) RequiredTypes(ctx context.Context, a *models.Application) ([]string, error) {
	if a.PricingModelID == nil {
		return nil, nil
	}
	var m models.PricingModel
	err := s.db.WithContext(ctx).Select("required_document_types").
		Where("id = ?", *a.PricingModelID).Take(&m).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading required document types: %w", err)
	}
	return m.RequiredDocumentTypes, nil
}

// MarkAttempt records the start of an attempt to send the document to the
// processor: status uploading, one more attempt.
func (s *Store) MarkAttempt(ctx context.Context, docID uuid.UUID) error {
	return s.updateUpstream(ctx, docID, map[string]any{
		"upstream_status":   UpstreamUploading,
		"upstream_attempts": gorm.Expr("upstream_attempts + 1"),
	})
}

// MarkFileID records the file id the processor issued for the current
// attempt, so the attempt can be matched with the processor's records.
func (s *Store) MarkFileID(ctx context.Context, docID uuid.UUID, fileID string) error {
	return s.updateUpstream(ctx, docID, map[string]any{"upstream_file_id": fileID})
}

// MarkAttemptFailed keeps the reason of a failed attempt that will be
// retried, so that a crash before the retry still leaves it on the row.
func (s *Store) MarkAttemptFailed(ctx context.Context, docID uuid.UUID, reason string) error {
	return s.updateUpstream(ctx, docID, map[string]any{"upstream_error": reason})
}

// MarkUploaded records that the processor holds the document under fileID.
func (s *Store) MarkUploaded(ctx context.Context, docID uuid.UUID, fileID string, at time.Time) error {
	return s.updateUpstream(ctx, docID, map[string]any{
		"upstream_status":      UpstreamUploaded,
		"upstream_file_id":     fileID,
		"upstream_error":       nil,
		"upstream_uploaded_at": at,
	})
}

// MarkFailed records that sending the document failed for good, with a
// reason in plain words for the people who read the application page.
func (s *Store) MarkFailed(ctx context.Context, docID uuid.UUID, reason string) error {
	return s.updateUpstream(ctx, docID, map[string]any{
		"upstream_status": UpstreamFailed,
		"upstream_error":  reason,
	})
}

func (s *Store) updateUpstream(ctx context.Context, docID uuid.UUID, values map[string]any) error {
	res := s.db.WithContext(ctx).Model(&models.Document{}).Where("id = ?", docID).Updates(values)
	if res.Error != nil {
		return fmt.Errorf("recording upstream status of document %s: %w", docID, res.Error)
	}
	if res.RowsAffected == 0 {
		return models.ErrNotFound
	}
	return nil
}

func notFound(err error) error {
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return models.ErrNotFound
	}
	return err
}
