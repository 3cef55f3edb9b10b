package pricing

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

// errCodeTaken is the store's report that the unique index
// pricing_models_active_code_key refused a row: another model that is not
// archived already has the code. The service turns it into a message.
var errCodeTaken = errors.New("pricing: upstream code already used by a current model")

// errReferenced is the store's report that an application still references the
// model, so the database refused to delete it.
var errReferenced = errors.New("pricing: model referenced by an application")

// Store reads and writes pricing models and their audit trail.
type Store struct{ db *gorm.DB }

// NewStore returns a pricing store on db.
func NewStore(db *gorm.DB) *Store { return &Store{db: db} }

// inTx runs fn with a store bound to one transaction.
func (s *Store) inTx(ctx context.Context, fn func(tx *Store) error) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error { return fn(&Store{db: tx}) })
}

// ByID loads one model, archived or not.
func (s *Store) ByID(ctx context.Context, id uuid.UUID) (*models.PricingModel, error) {
	return s.take(s.db.WithContext(ctx).Where("id = ?", id))
}

// byIDForUpdate loads one model and locks its row until the transaction ends.
func (s *Store) byIDForUpdate(ctx context.Context, id uuid.UUID) (*models.PricingModel, error) {
	return s.take(s.db.WithContext(ctx).Clauses(clause.Locking{Strength: "UPDATE"}).Where("id = ?", id))
}

// currentByCode loads the model that is not archived and has code.
func (s *Store) currentByCode(ctx context.Context, code string) (*models.PricingModel, error) {
	return s.take(s.db.WithContext(ctx).Where("upstream_code = ? AND archived_at IS NULL", code))
}

func (s *Store) take(q *gorm.DB) (*models.PricingModel, error) {
	var m models.PricingModel
	if err := q.Take(&m).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil, models.ErrNotFound
		}
		return nil, fmt.Errorf("load pricing model: %w", err)
	}
	return &m, nil
}

// ListSelectable lists the models reps may choose, by name.
func (s *Store) ListSelectable(ctx context.Context) ([]models.PricingModel, error) {
	var list []models.PricingModel
	err := s.db.WithContext(ctx).Where("active AND archived_at IS NULL").Order("lower(name), id").Find(&list).Error
	if err != nil {
		return nil, fmt.Errorf("list selectable pricing models: %w", err)
	}
	return list, nil
}

// ListAll lists every model, archived ones too, by name.
func (s *Store) ListAll(ctx context.Context) ([]models.PricingModel, error) {
	var list []models.PricingModel
	if err := s.db.WithContext(ctx).Order("lower(name), id").Find(&list).Error; err != nil {
		return nil, fmt.Errorf("list pricing models: %w", err)
	}
	return list, nil
}

// Count counts every model, archived ones too.
func (s *Store) Count(ctx context.Context) (int64, error) {
	var n int64
	if err := s.db.WithContext(ctx).Model(&models.PricingModel{}).Count(&n).Error; err != nil {
		return 0, fmt.Errorf("count pricing models: %w", err)
	}
	return n, nil
}

// Create inserts a model.
func (s *Store) Create(ctx context.Context, m *models.PricingModel) error {
	return translate(s.db.WithContext(ctx).Create(m).Error, "create pricing model")
}

// Update writes every editable column of m, including archived_at.
func (s *Store) Update(ctx context.Context, m *models.PricingModel) error {
	err := s.db.WithContext(ctx).Model(&models.PricingModel{}).Where("id = ?", m.ID).Updates(map[string]any{
		"name":                    m.Name,
		"description":             m.Description,
		"admin_note":              m.AdminNote,
		"upstream_code":           m.UpstreamCode,
		"device_purchased":        m.DevicePurchased,
		"fee_summary":             m.FeeSummary,
		"required_document_types": m.RequiredDocumentTypes,
		"active":                  m.Active,
		"archived_at":             m.ArchivedAt,
		"version":                 m.Version,
		"updated_at":              m.UpdatedAt,
	}).Error
	return translate(err, "update pricing model")
}

// Delete removes a model row.
func (s *Store) Delete(ctx context.Context, id uuid.UUID) error {
	return translate(s.db.WithContext(ctx).Delete(&models.PricingModel{}, "id = ?", id).Error, "delete pricing model")
}

// References counts the applications that reference the model, deleted ones
// included: their rows are kept, so they still hold on to it.
func (s *Store) References(ctx context.Context, id uuid.UUID) (int64, error) {
	var n int64
	err := s.db.WithContext(ctx).Model(&models.Application{}).Where("pricing_model_id = ?", id).Count(&n).Error
	if err != nil {
		return 0, fmt.Errorf("count applications of pricing model: %w", err)
	}
	return n, nil
}

// UsageCounts counts, per model, the applications that use it and are not
// deleted, for the admin list.
func (s *Store) UsageCounts(ctx context.Context) (map[uuid.UUID]int64, error) {
	var rows []struct {
		PricingModelID uuid.UUID
		N              int64
	}
	err := s.db.WithContext(ctx).Model(&models.Application{}).
		Select("pricing_model_id, count(*) AS n").
		Where("pricing_model_id IS NOT NULL AND deleted_at IS NULL").
		Group("pricing_model_id").Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("count applications per pricing model: %w", err)
	}
	counts := make(map[uuid.UUID]int64, len(rows))
	for _, r := range rows {
		counts[r.PricingModelID] = r.N
	}
	return counts, nil
}

// AddEvent appends an entry to a model's audit trail.
func (s *Store) AddEvent(ctx context.Context, e *models.PricingModelEvent) error {
	if err := s.db.WithContext(ctx).Create(e).Error; err != nil {
		return fmt.Errorf("record pricing model event: %w", err)
	}
	return nil
}

// eventRow is an audit entry with the name of the person who acted.
type eventRow struct {
	models.PricingModelEvent
	ActorName  string
	ActorEmail string
}

// events returns a model's audit trail, newest first.
func (s *Store) events(ctx context.Context, id uuid.UUID) ([]eventRow, error) {
	var rows []eventRow
	err := s.db.WithContext(ctx).Table("pricing_model_events AS e").
		Select("e.*, coalesce(u.name, '') AS actor_name, coalesce(u.email, '') AS actor_email").
		Joins("LEFT JOIN users u ON u.id = e.actor_id").
		Where("e.pricing_model_id = ?", id).
		Order("e.created_at DESC, e.id DESC").
		Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("load pricing model history: %w", err)
	}
	return rows, nil
}

// translate turns the database's refusals that users can cause into the
// store's sentinel errors, and wraps the rest.
func translate(err error, what string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, gorm.ErrDuplicatedKey):
		// The primary key is a fresh random UUID, so the only unique index a
		// write can hit is the one on the code of current models.
		return errCodeTaken
	case errors.Is(err, gorm.ErrForeignKeyViolated):
		return errReferenced
	}
	return fmt.Errorf("%s: %w", what, err)
}

// timePtr returns a pointer to a copy of t.
func timePtr(t time.Time) *time.Time { return &t }
