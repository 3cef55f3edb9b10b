package models

import (
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"
)

// PricingModel maps one of the reseller's offers to the upstream pricing code.
type PricingModel struct {
	ID                    uuid.UUID `gorm:"type:uuid;primaryKey"`
	Name                  string
	Description           string
	UpstreamCode          string
	DevicePurchased       bool
	FeeSummary            string
	RequiredDocumentTypes pq.StringArray `gorm:"type:text[]"`
	Active                bool
	ArchivedAt            *time.Time
	CreatedBy             *uuid.UUID `gorm:"type:uuid"`
	CreatedAt             time.Time
	UpdatedAt             time.Time
}

// PricingModelEvent is one audited change of a pricing model.
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
