package applications

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/payportal/portal/internal/models"
)

// errNoRows is the store's report that a conditional update matched nothing: the row moved
// on (another version, already deleted or restored). The service words it for people.
var errNoRows = errors.New("applications: no row matched")

// Store reads and writes applications, their audit trail and what the workspace shows
// beside them. Access rules live in the service (see LoadVisible); the store does what it is
// told.
type Store struct{ db *gorm.DB }

// NewStore returns a store on db.
func NewStore(db *gorm.DB) *Store { return &Store{db: db} }

// inTx runs fn with a store bound to one transaction.
func (s *Store) inTx(ctx context.Context, fn func(tx *Store) error) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error { return fn(&Store{db: tx}) })
}

// Insert stores a new application.
func (s *Store) Insert(ctx context.Context, a *models.Application) error {
	if err := s.db.WithContext(ctx).Create(a).Error; err != nil {
		return fmt.Errorf("insert application: %w", err)
	}
	return nil
}

// UpdateDraft writes the draft of a, its searchable copies and its pricing model, if the row
// still has a.Version; it then bumps the version. errNoRows means someone saved first.
func (s *Store) UpdateDraft(ctx context.Context, a *models.Application, now time.Time) error {
	res := s.db.WithContext(ctx).Model(&models.Application{}).
		Where("id = ? AND version = ? AND deleted_at IS NULL", a.ID, a.Version).
		Updates(map[string]any{
			"draft":            a.Draft,
			"legal_name":       a.LegalName,
			"dba":              a.DBA,
			"contact_name":     a.ContactName,
			"contact_email":    a.ContactEmail,
			"pricing_model_id": a.PricingModelID,
			"version":          gorm.Expr("version + 1"),
			"updated_at":       now,
		})
	if res.Error != nil {
		return fmt.Errorf("update application draft: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return errNoRows
	}
	a.Version++
	a.UpdatedAt = now
	return nil
}

// SetOwner hands an application to another user.
func (s *Store) SetOwner(ctx context.Context, id, ownerID uuid.UUID, now time.Time) error {
	return s.update(ctx, "reassign application", s.db.Where("id = ? AND deleted_at IS NULL", id),
		map[string]any{"owner_id": ownerID, "updated_at": now})
}

// SoftDelete hides an application from everyone but the admins' deleted list.
func (s *Store) SoftDelete(ctx context.Context, id, by uuid.UUID, now time.Time) error {
	return s.update(ctx, "delete application", s.db.Where("id = ? AND deleted_at IS NULL", id),
		map[string]any{"deleted_at": now, "deleted_by": by})
}

// Restore undoes SoftDelete.
func (s *Store) Restore(ctx context.Context, id uuid.UUID, now time.Time) error {
	return s.update(ctx, "restore application", s.db.Where("id = ? AND deleted_at IS NOT NULL", id),
		map[string]any{"deleted_at": nil, "deleted_by": nil, "updated_at": now})
}

func (s *Store) update(ctx context.Context, what string, where *gorm.DB, values map[string]any) error {
	res := where.WithContext(ctx).Model(&models.Application{}).Updates(values)
	if res.Error != nil {
		return fmt.Errorf("%s: %w", what, res.Error)
	}
	if res.RowsAffected == 0 {
		return errNoRows
	}
	return nil
}

// Deleted loads a soft-deleted application; any other id is models.ErrNotFound.
func (s *Store) Deleted(ctx context.Context, id uuid.UUID) (*models.Application, error) {
	var a models.Application
	err := s.db.WithContext(ctx).Where("id = ? AND deleted_at IS NOT NULL", id).Take(&a).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("load deleted application: %w", err)
	}
	return &a, nil
}

// AddEvent appends one entry to an application's audit trail.
func (s *Store) AddEvent(ctx context.Context, e *models.ApplicationEvent) error {
	if len(e.Details) == 0 {
		e.Details = models.JSON("{}")
	}
	if e.Fields == nil {
		e.Fields = []string{}
	}
	if err := s.db.WithContext(ctx).Create(e).Error; err != nil {
		return fmt.Errorf("record application event %s: %w", e.Action, err)
	}
	return nil
}

// eventRow is an audit entry with the name of who acted.
type eventRow struct {
	models.ApplicationEvent
	ActorName string
}

// Events returns the newest limit entries of an application's audit trail, newest first.
func (s *Store) Events(ctx context.Context, appID uuid.UUID, limit int) ([]eventRow, error) {
	var rows []eventRow
	err := s.db.WithContext(ctx).Table("application_events AS e").
		Select("e.*, COALESCE(NULLIF(u.name, ''), u.email, '') AS actor_name").
		Joins("LEFT JOIN users u ON u.id = e.actor_id").
		Where("e.application_id = ?", appID).
		Order("e.created_at DESC, e.id DESC").Limit(limit).
		Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("load application events: %w", err)
	}
	return rows, nil
}

// UploadedDocumentTypes lists the types of an application's documents that are not deleted.
func (s *Store) UploadedDocumentTypes(ctx context.Context, appID uuid.UUID) ([]string, error) {
	var types []string
	err := s.db.WithContext(ctx).Model(&models.Document{}).
		Where("application_id = ? AND deleted_at IS NULL", appID).
		Distinct().Pluck("doc_type", &types).Error
	if err != nil {
		return nil, fmt.Errorf("load document types: %w", err)
	}
	return types, nil
}

// Users lists every user by name, for the admins' owner filter and reassignment.
func (s *Store) Users(ctx context.Context) ([]models.User, error) {
	var users []models.User
	err := s.db.WithContext(ctx).Select("id", "email", "name", "role", "active").
		Order("lower(COALESCE(NULLIF(name, ''), email))").Find(&users).Error
	if err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	return users, nil
}

// User loads one user.
func (s *Store) User(ctx context.Context, id uuid.UUID) (*models.User, error) {
	var u models.User
	err := s.db.WithContext(ctx).Where("id = ?", id).Take(&u).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, models.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("load user: %w", err)
	}
	return &u, nil
}
