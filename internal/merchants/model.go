package merchants

import (
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/states"
)

// Merchant is a boarded merchant, with what its pages show of its
// application: the owning rep and the upstream's newest state.
type Merchant struct {
	ID            uuid.UUID
	ApplicationID uuid.UUID
	// Name is the business name at boarding: the DBA, else the legal name.
	Name      string
	LegalName string
	BoardedAt time.Time
	CreatedAt time.Time
	UpdatedAt time.Time

	SuspendedAt   *time.Time
	SuspendedBy   *uuid.UUID
	SuspendReason string

	// AlertStatus is a declined or withdrawn reported after boarding, raised
	// and not applied; AlertAt is when the upstream says it happened.
	AlertStatus     *string
	AlertAt         *time.Time
	AlertResolvedAt *time.Time
	AlertResolvedBy *uuid.UUID
	AlertResolution string

	// SandboxFetch is where the sandbox's hand-over of the credentials
	// stands: none, pending, done or failed (with SandboxFetchError).
	SandboxFetch      string
	SandboxFetchError string

	// From the application: the owning rep, and the upstream's state.
	OwnerID               uuid.UUID
	OwnerName             string
	UpstreamApplicationID *string
	UpstreamStatus        *string
}

// Suspended reports whether an admin suspended the merchant's payments and
// terminals.
func (m *Merchant) Suspended() bool { return m.SuspendedAt != nil }

// ErrSuspended refuses every payment and terminal action of a suspended
// merchant.
var ErrSuspended = apperr.New(apperr.KindConflict, "An admin has suspended this merchant's payments and terminals; nothing can be charged, reversed or launched until an admin resumes them.")

// CanTransact says whether the merchant may take or reverse payments and use
// its terminals now: nil, or ErrSuspended. Payments and terminals call it
// (Service.Authorize does) before every action.
func (m *Merchant) CanTransact() error {
	if m.Suspended() {
		return ErrSuspended
	}
	return nil
}

// AlertOpen reports whether an alert waits for an admin's decision.
func (m *Merchant) AlertOpen() bool { return m.AlertStatus != nil && m.AlertResolvedAt == nil }

// AlertState words the alert's upstream state.
func (m *Merchant) AlertState() states.State {
	if m.AlertStatus == nil {
		return states.State{}
	}
	return states.Upstream(*m.AlertStatus)
}

// State is the merchant's upstream state from the one state table.
func (m *Merchant) State() states.State {
	return states.Of(models.StatusLinked, m.UpstreamStatus)
}

// Path is the address of the merchant's page.
func Path(id uuid.UUID) string { return "/merchants/" + id.String() }

// Path is the address of the merchant's page.
func (m *Merchant) Path() string { return Path(m.ID) }

// The sources of a credential.
const (
	SourceAdmin   = "admin"
	SourceSandbox = "sandbox"
)

// Check is the outcome of the last "test connection" of a credential.
type Check struct {
	At      *time.Time
	OK      *bool
	Message string
}

// Health words the check for lists: "Not tested", "Working", "Failing".
func (c Check) Health() string {
	switch {
	case c.At == nil || c.OK == nil:
		return "Not tested"
	case *c.OK:
		return "Working"
	}
	return "Failing"
}

// State is the check's outcome for styling: "none", "ok" or "failing".
func (c Check) State() string {
	switch c.Health() {
	case "Working":
		return "ok"
	case "Failing":
		return "failing"
	}
	return "none"
}

// PaymentAccount is a merchant's direct payment account (area B). The token
// is sealed; only its last four characters are readable.
type PaymentAccount struct {
	OID        string
	TokenLast4 string
	Source     string
	UpdatedBy  *uuid.UUID
	UpdatedAt  time.Time
	Check      Check
	sealed     string
}

// TerminalAccount is a merchant's terminal cloud API key (area C), sealed.
type TerminalAccount struct {
	APIKeyLast4 string
	Source      string
	UpdatedBy   *uuid.UUID
	UpdatedAt   time.Time
	sealed      string
}

// Location is one of a merchant's terminal cloud locations.
type Location struct {
	ID         uuid.UUID
	MerchantID uuid.UUID
	LocationID string
	Name       string
	TestMode   bool
	CreatedAt  time.Time
	UpdatedAt  time.Time
	Check      Check
}

// Member is a person of a merchant and what they may do.
type Member struct {
	UserID      uuid.UUID
	Email       string
	Name        string
	Active      bool
	MFAEnabled  bool
	Permissions Permissions
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// DisplayName is the member's name, else their e-mail address.
func (m Member) DisplayName() string {
	if m.Name != "" {
		return m.Name
	}
	return m.Email
}

// masked shows a secret's last four characters only.
func masked(last4 string) string { return "••••" + last4 }

// Masked shows the token as its last four characters.
func (p *PaymentAccount) Masked() string { return masked(p.TokenLast4) }

// Masked shows the API key as its last four characters.
func (t *TerminalAccount) Masked() string { return masked(t.APIKeyLast4) }

// last4 is what stays readable of a secret.
func last4(secret string) string {
	r := []rune(secret)
	if len(r) <= 8 {
		return "" // too short to show any of it
	}
	return string(r[len(r)-4:])
}
