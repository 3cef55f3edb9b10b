package models

import (
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"
)

// PricingModel maps one of the reseller's offers to the upstream pricing code.
// Active says whether reps may choose it for new applications; an archived model
// (ArchivedAt set) is retired but stays readable on the applications that use it.
type PricingModel struct {
	ID   uuid.UUID `gorm:"type:uuid;primaryKey"`
	Name string
	// Description is what reps read beside the model; AdminNote is for admins only
	// (how it was set up, what to check) and never shown to reps.
	Description           string
	AdminNote             string
	UpstreamCode          string
	DevicePurchased       bool
	FeeSummary            string
	RequiredDocumentTypes pq.StringArray `gorm:"type:text[]"`
	Active                bool
	ArchivedAt            *time.Time
	CreatedBy             *uuid.UUID `gorm:"type:uuid"`
	CreatedAt             time.Time
	UpdatedAt             time.Time
	// Version grows by one with every change, so that a save based on an
	// outdated copy is refused rather than overwriting someone else's change.
	Version int
}

// Archived reports whether the model has been retired.
func (m *PricingModel) Archived() bool { return m.ArchivedAt != nil }

// Selectable reports whether reps may choose the model for an application.
func (m *PricingModel) Selectable() bool { return m.Active && m.ArchivedAt == nil }

// PricingModelEvent is one audited change of a pricing model. It deliberately
// has no foreign key to the model, so the trail survives the model's deletion.
type PricingModelEvent struct {
	ID             int64      `gorm:"primaryKey"`
	PricingModelID uuid.UUID  `gorm:"type:uuid"`
	ActorID        *uuid.UUID `gorm:"type:uuid"`
	Action         string
	OldCode        *string
	NewCode        *string
	Details        JSON `gorm:"type:jsonb"`
	CreatedAt      time.Time
}
