package applications

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/models"
)

// ErrNoMatch is the store's report that a conditional update matched nothing: the row
// moved on (another version, already deleted or restored, a later submission). The rooms
// word it for people.
var ErrNoMatch = errors.New("applications: no row matched")

// Store is the one place that reads and writes the applications table. Every method takes
// a database.Querier: the pool (pass nil) or the pgx.Tx of a use case, which then also
// records the audit entry and enqueues jobs, so that all of it commits or none does.
// Access rules are the methods Visible and Editable; the writes do what they are told.
type Store struct {
	database.Tables
	// links seals hand-off links (handoff_link.go); nil stores them as given.
	links *fieldcrypt.KeyRing
}

// NewStore returns a store on pool.
func NewStore(pool *pgxpool.Pool) *Store { return &Store{Tables: database.Tables{Pool: pool}} }

// columns are the columns of models.Application, in the order the struct declares them.
const columns = `id, owner_id, status, legal_name, dba, contact_name, contact_email, draft, pricing_model_id,
	version, submitted_pricing_code, submitted_snapshot, submitted_at, submitted_by, upstream_application_id,
	upstream_started_at, data_sent_at, documents_sent_at, submission_count, push_attempts, push_started_at,
	push_finished_at, handoff_link, linked_at, upstream_status, upstream_status_at, last_error, last_error_kind, opened_at,
	open_token, tin_index, created_at, updated_at, deleted_at, deleted_by`

// one reads the application a query returns, or models.ErrNotFound.
func one(ctx context.Context, q database.Querier, what, sql string, args ...any) (*models.Application, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	a, err := pgx.CollectExactlyOneRow(rows, pgx.RowToAddrOfStructByName[models.Application])
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, models.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return a, nil
}

// Get loads a live (not deleted) application whoever asks; rooms that act for a person
// use Visible or Editable instead.
func (s *Store) Get(ctx context.Context, q database.Querier, id uuid.UUID) (*models.Application, error) {
	return one(ctx, s.On(q), "load application", `SELECT `+columns+` FROM applications WHERE id = $1 AND deleted_at IS NULL`, id)
}

// Deleted loads a soft-deleted application; any other id is models.ErrNotFound.
func (s *Store) Deleted(ctx context.Context, q database.Querier, id uuid.UUID) (*models.Application, error) {
	return one(ctx, s.On(q), "load deleted application", `SELECT `+columns+` FROM applications WHERE id = $1 AND deleted_at IS NOT NULL`, id)
}

// Insert stores a new application.
func (s *Store) Insert(ctx context.Context, q database.Querier, a *models.Application) error {
	_, err := s.On(q).Exec(ctx, `INSERT INTO applications (id, owner_id, status, legal_name, dba, contact_name,
			contact_email, draft, pricing_model_id, version, created_at, updated_at, tin_index)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
		a.ID, a.OwnerID, string(a.Status), a.LegalName, a.DBA, a.ContactName, a.ContactEmail, jsonText(a.Draft),
		a.PricingModelID, a.Version, a.CreatedAt, a.UpdatedAt, a.TINIndex)
	if err != nil {
		return fmt.Errorf("insert application: %w", err)
	}
	return nil
}

// UpdateDraft writes the draft of a, its searchable copies and its pricing model, if the row
// still has a.Version; it then bumps the version. ErrNoMatch means someone saved first.
func (s *Store) UpdateDraft(ctx context.Context, q database.Querier, a *models.Application, now time.Time) error {
	err := s.update(ctx, q, "update application draft", `UPDATE applications
		SET draft = $3, legal_name = $4, dba = $5, contact_name = $6, contact_email = $7, pricing_model_id = $8,
		    version = version + 1, updated_at = $9, tin_index = $10
		WHERE id = $1 AND version = $2 AND deleted_at IS NULL`,
		a.ID, a.Version, jsonText(a.Draft), a.LegalName, a.DBA, a.ContactName, a.ContactEmail, a.PricingModelID, now, a.TINIndex)
	if err != nil {
		return err
	}
	a.Version++
	a.UpdatedAt = now
	return nil
}

// SetOwner hands an application to another user.
func (s *Store) SetOwner(ctx context.Context, q database.Querier, id, ownerID uuid.UUID, now time.Time) error {
	return s.update(ctx, q, "reassign application",
		`UPDATE applications SET owner_id = $2, updated_at = $3 WHERE id = $1 AND deleted_at IS NULL`, id, ownerID, now)
}

// SoftDelete hides an application from everyone but the admins' deleted list.
func (s *Store) SoftDelete(ctx context.Context, q database.Querier, id, by uuid.UUID, now time.Time) error {
	return s.update(ctx, q, "delete application",
		`UPDATE applications SET deleted_at = $3, deleted_by = $2 WHERE id = $1 AND deleted_at IS NULL`, id, by, now)
}

// Restore undoes SoftDelete.
func (s *Store) Restore(ctx context.Context, q database.Querier, id uuid.UUID, now time.Time) error {
	return s.update(ctx, q, "restore application",
		`UPDATE applications SET deleted_at = NULL, deleted_by = NULL, updated_at = $2 WHERE id = $1 AND deleted_at IS NOT NULL`, id, now)
}

// update runs a conditional UPDATE; ErrNoMatch when it changed no row.
func (s *Store) update(ctx context.Context, q database.Querier, what, sql string, args ...any) error {
	tag, err := s.On(q).Exec(ctx, sql, args...)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if tag.RowsAffected() == 0 {
		return ErrNoMatch
	}
	return nil
}

// jsonText is a jsonb value as text, or NULL when empty.
func jsonText(j models.JSON) *string {
	if len(j) == 0 {
		return nil
	}
	s := string(j)
	return &s
}

// Querier returns the pool, for reads outside a transaction by rooms that take a
// database.Querier (the audit history).
func (s *Store) Querier() database.Querier { return s.Pool }

// InsertMany stores new applications in one statement (COPY), for imports: the same
// columns as Insert.
func (s *Store) InsertMany(ctx context.Context, tx pgx.Tx, apps []*models.Application) error {
	if len(apps) == 0 {
		return nil
	}
	rows := make([][]any, len(apps))
	for i, a := range apps {
		rows[i] = []any{a.ID, a.OwnerID, string(a.Status), a.LegalName, a.DBA, a.ContactName, a.ContactEmail, jsonText(a.Draft),
			a.PricingModelID, a.Version, a.CreatedAt, a.UpdatedAt, a.TINIndex}
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"applications"}, []string{"id", "owner_id", "status", "legal_name", "dba",
		"contact_name", "contact_email", "draft", "pricing_model_id", "version", "created_at", "updated_at", "tin_index"},
		pgx.CopyFromRows(rows))
	if err != nil {
		return fmt.Errorf("insert applications: %w", err)
	}
	return nil
}
