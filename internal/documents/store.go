package documents

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"gorm.io/gorm"

	"github.com/payportal/portal/internal/database"
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

// Store reads and writes the documents table. Changes that go with an audit
// entry run in a pgx transaction (InTx); the upstream status of a document is
// written on its own.
type Store struct {
	database.Tables
	db *gorm.DB
}

// NewStore returns a document store on db.
func NewStore(db *database.DB) *Store {
	return &Store{Tables: database.Tables{Pool: db.Pool}, db: db.Gorm}
}

// columns are the columns of models.Document, in the order the struct declares them.
const columns = `id, application_id, doc_type, display_name, content_type, size_bytes, sha256, storage_key,
	uploaded_by, created_at, deleted_at, upstream_file_id, upstream_status, upstream_error, upstream_attempts,
	upstream_uploaded_at, encrypted_key_id`

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

// lockForUpdate re-reads a current document under a row lock, so that two
// requests cannot replace or delete it at once.
func (s *Store) lockForUpdate(ctx context.Context, tx pgx.Tx, appID, docID uuid.UUID) (*models.Document, error) {
	rows, err := tx.Query(ctx, `SELECT `+columns+` FROM documents
		WHERE id = $1 AND application_id = $2 AND deleted_at IS NULL FOR UPDATE`, docID, appID)
	if err != nil {
		return nil, fmt.Errorf("locking document: %w", err)
	}
	d, err := pgx.CollectExactlyOneRow(rows, pgx.RowToAddrOfStructByName[models.Document])
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, models.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("locking document: %w", err)
	}
	return d, nil
}

// insert adds a document row.
func (s *Store) insert(ctx context.Context, tx pgx.Tx, d *models.Document) error {
	_, err := tx.Exec(ctx, `INSERT INTO documents (`+columns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
		d.ID, d.ApplicationID, d.DocType, d.DisplayName, d.ContentType, d.SizeBytes, d.SHA256, d.StorageKey,
		d.UploadedBy, d.CreatedAt, d.DeletedAt, d.UpstreamFileID, d.UpstreamStatus, d.UpstreamError, d.UpstreamAttempts,
		d.UpstreamUploadedAt, d.EncryptedKeyID)
	if err != nil {
		return fmt.Errorf("inserting document: %w", err)
	}
	return nil
}

// softDelete marks a current document deleted; it reports models.ErrNotFound
// when the document was already gone.
func (s *Store) softDelete(ctx context.Context, tx pgx.Tx, docID uuid.UUID, at time.Time) error {
	tag, err := tx.Exec(ctx, `UPDATE documents SET deleted_at = $2 WHERE id = $1 AND deleted_at IS NULL`, docID, at)
	if err != nil {
		return fmt.Errorf("deleting document: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return models.ErrNotFound
	}
	return nil
}

// UploadedTypes lists the types of an application's documents that are not deleted,
// for the readiness checklist.
func (s *Store) UploadedTypes(ctx context.Context, appID uuid.UUID) ([]string, error) {
	var types []string
	err := s.db.WithContext(ctx).Model(&models.Document{}).
		Where("application_id = ? AND deleted_at IS NULL", appID).
		Distinct().Pluck("doc_type", &types).Error
	if err != nil {
		return nil, fmt.Errorf("load document types: %w", err)
	}
	return types, nil
}
