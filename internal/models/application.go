package models

import (
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"
)

// ApplicationStatus is where an application stands in the portal's own workflow.
type ApplicationStatus string

// The portal-side statuses. The upstream's own states are kept apart in UpstreamStatus.
const (
	StatusDraft          ApplicationStatus = "draft"
	StatusSubmitting     ApplicationStatus = "submitting"
	StatusNeedsAttention ApplicationStatus = "needs_attention"
	StatusLinked         ApplicationStatus = "linked"
)

// Application is one merchant's onboarding application. Its ID is also the
// externalApplicationId sent upstream, so it never changes.
type Application struct {
	ID                    uuid.UUID `gorm:"type:uuid;primaryKey"`
	OwnerID               uuid.UUID `gorm:"type:uuid"`
	Status                ApplicationStatus
	LegalName             string
	DBA                   string `gorm:"column:dba"`
	ContactName           string
	ContactEmail          string
	Draft                 JSON       `gorm:"type:jsonb"`
	PricingModelID        *uuid.UUID `gorm:"type:uuid"`
	Version               int
	SubmittedPricingCode  *string
	SubmittedSnapshot     JSON `gorm:"type:jsonb"`
	SubmittedAt           *time.Time
	SubmittedBy           *uuid.UUID `gorm:"type:uuid"`
	UpstreamApplicationID *string
	// UpstreamStartedAt, DataSentAt and DocumentsSentAt record the steps of the
	// push upstream as each one succeeds, so a retry resumes after the last.
	UpstreamStartedAt *time.Time
	DataSentAt        *time.Time
	DocumentsSentAt   *time.Time
	// SubmissionCount numbers the submissions; the push job of each carries it.
	SubmissionCount int
	// PushAttempts counts the push's runs since the last submission.
	PushAttempts     int
	PushStartedAt    *time.Time
	PushFinishedAt   *time.Time
	HandoffLink      *string
	LinkedAt         *time.Time
	UpstreamStatus   *string
	UpstreamStatusAt *time.Time
	LastError        *string
	// LastErrorKind marks a stop that needs more than words: "pricing_code"
	// (the upstream refused the pricing model's code).
	LastErrorKind *string
	OpenedAt      *time.Time
	OpenToken     *string
	CreatedAt     time.Time
	UpdatedAt     time.Time
	DeletedAt     *time.Time
	DeletedBy     *uuid.UUID `gorm:"type:uuid"`

	// TINIndex is the keyed blind index of the TIN (applications.Sealer.TINIndex): equal
	// TINs have equal indexes, found without decrypting; nil until computed.
	TINIndex *string
}

// Locked reports whether the hand-off link exists, after which only the merchant
// may change values, upstream.
func (a *Application) Locked() bool { return a.HandoffLink != nil && *a.HandoffLink != "" }

// AuditEvent is one entry of the audit trail (audit_events), about the subject
// SubjectKind/SubjectID. Fields names the changed fields, never the values of personal
// data. Only the audit room writes it; tests read it.
type AuditEvent struct {
	ID          int64 `gorm:"primaryKey"`
	SubjectKind string
	SubjectID   uuid.UUID  `gorm:"type:uuid"`
	ActorID     *uuid.UUID `gorm:"type:uuid"`
	Action      string
	Fields      pq.StringArray `gorm:"type:text[]"`
	Details     JSON           `gorm:"type:jsonb"`
	CreatedAt   time.Time
}

// Document is a supporting file attached to an application.
type Document struct {
	ID                 uuid.UUID `gorm:"type:uuid;primaryKey"`
	ApplicationID      uuid.UUID `gorm:"type:uuid"`
	DocType            string
	DisplayName        string
	ContentType        string
	SizeBytes          int64
	SHA256             string `gorm:"column:sha256"`
	StorageKey         string
	UploadedBy         *uuid.UUID `gorm:"type:uuid"`
	CreatedAt          time.Time
	DeletedAt          *time.Time
	UpstreamFileID     *string
	UpstreamStatus     string
	UpstreamError      *string
	UpstreamAttempts   int
	UpstreamUploadedAt *time.Time
	// EncryptedKeyID is the ring key the stored bytes are encrypted under (NULL until the
	// at-rest pass has looked at a document stored before uploads recorded it).
	EncryptedKeyID *string
}
