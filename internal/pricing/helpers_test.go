package pricing_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/pricing"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// fixture is a pricing service on a fresh database, with a fixed clock.
type fixture struct {
	db      *gorm.DB
	service *pricing.Service
	now     time.Time
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	db := testdb.New(t)
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	return &fixture{db: db.Gorm, now: now, service: pricing.NewService(db.Gorm, func() time.Time { return now }, slog.New(slog.DiscardHandler))}
}

// user inserts a user row to act as an admin.
func (f *fixture) user(t *testing.T, name string) *models.User {
	t.Helper()
	u := &models.User{ID: uuid.New(), Email: name + "@example.com", Name: name, Role: models.RoleAdmin,
		PasswordHash: "x", Active: true, SessionVersion: 1}
	if err := f.db.Create(u).Error; err != nil {
		t.Fatal(err)
	}
	return u
}

// create stores a valid model with the given name and code.
func (f *fixture) create(t *testing.T, actor *models.User, name, code string) *models.PricingModel {
	t.Helper()
	m, err := f.service.Create(context.Background(), actor, pricing.Input{
		Name: name, UpstreamCode: code, FeeSummary: "2.9% per transaction", Active: true,
		RequiredDocumentTypes: []string{"voided_check"},
	})
	if err != nil {
		t.Fatalf("create %s: %v", code, err)
	}
	return m
}

// application inserts an application of owner that uses the pricing model.
func (f *fixture) application(t *testing.T, owner *models.User, modelID uuid.UUID) uuid.UUID {
	t.Helper()
	id := uuid.New()
	if err := f.db.Exec("INSERT INTO applications (id, owner_id, pricing_model_id) VALUES (?, ?, ?)", id, owner.ID, modelID).Error; err != nil {
		t.Fatal(err)
	}
	return id
}

// events returns a model's audit rows, oldest first.
func (f *fixture) events(t *testing.T, modelID uuid.UUID) []models.PricingModelEvent {
	t.Helper()
	var list []models.PricingModelEvent
	if err := f.db.Where("pricing_model_id = ?", modelID).Order("id").Find(&list).Error; err != nil {
		t.Fatal(err)
	}
	return list
}

// countModels counts every pricing model row.
func (f *fixture) countModels(t *testing.T) int64 {
	t.Helper()
	var n int64
	if err := f.db.Model(&models.PricingModel{}).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
