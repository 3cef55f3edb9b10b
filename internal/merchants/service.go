package merchants

import (
	"context"
	"log/slog"
	"net/url"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/auth"
	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/upstream/payments"
	"github.com/payportal/portal/internal/upstream/sandboxadmin"
	"github.com/payportal/portal/internal/upstream/terminals"
)

// PaymentsAPI is what the merchants room needs of the direct payment API
// (area B): a harmless read to test an account's token.
// *payments.Client implements it.
type PaymentsAPI interface {
	Get(ctx context.Context, acct payments.Account, externalTransactionID string) (*payments.Transaction, error)
}

// TerminalsAPI is what it needs of the terminal cloud (area C): the
// configuration download, to test an API key and a location.
// *terminals.Client implements it.
type TerminalsAPI interface {
	Config(ctx context.Context, loc terminals.Location) (*terminals.LocationConfig, error)
}

// HandOver is the sandbox's admin API, which hands a boarded merchant's
// credentials over in sandbox mode. *sandboxadmin.Client implements it.
type HandOver interface {
	Credentials(ctx context.Context, applicationID string) (*sandboxadmin.Credentials, error)
}

// Queue enqueues jobs in a transaction; *jobs.Queue implements it.
type Queue interface {
	InsertTx(ctx context.Context, tx pgx.Tx, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
}

// Deps are the collaborators of the merchants room.
type Deps struct {
	Store *Store
	// Ring seals the credentials' secrets.
	Ring *fieldcrypt.KeyRing
	// Auth invites merchant users and ends sessions.
	Auth   *auth.Service
	Outbox *mail.Outbox
	Queue  Queue
	// Payments and Terminals test credentials; nil when the area's address
	// is not configured (the test then says so).
	Payments  PaymentsAPI
	Terminals TerminalsAPI
	// PaymentsURL and TerminalsURL are the areas' addresses, for messages.
	PaymentsURL, TerminalsURL string
	// HandOver fetches credentials from the sandbox; nil outside sandbox mode.
	HandOver HandOver
	// Outcomes tells the merchant's history what became of its payments and
	// terminal transactions (the payments ledger); nil words them as asked.
	Outcomes audit.Outcomes
	// PublicURL is the portal's address, for links in e-mails.
	PublicURL    *url.URL
	ResellerName string
	// Announcer tells partners of boardings and suspensions; nil tells no one.
	Announcer Announcer
	Now       func() time.Time
	Log       *slog.Logger
}

// Service holds the merchants' use cases.
type Service struct{ d Deps }

// NewService returns the merchants service.
func NewService(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{d: d}
}

// Store returns the merchants store.
func (s *Service) Store() *Store { return s.d.Store }

// SandboxMode reports whether credentials are handed over by a sandbox.
func (s *Service) SandboxMode() bool { return s.d.HandOver != nil }

func (s *Service) now() time.Time { return s.d.Now().UTC() }

// secretAAD binds a sealed secret to its merchant and use, so it cannot be
// moved to another row.
func secretAAD(merchantID uuid.UUID, what string) string {
	return "merchants/" + merchantID.String() + "/" + what
}

// seal encrypts a secret of a merchant.
func (s *Service) seal(merchantID uuid.UUID, what, secret string) (string, error) {
	return s.d.Ring.Encrypt(secret, secretAAD(merchantID, what))
}

// open decrypts a secret of a merchant.
func (s *Service) open(merchantID uuid.UUID, what, sealed string) (string, error) {
	return s.d.Ring.Decrypt(sealed, secretAAD(merchantID, what))
}

// The names the secrets are sealed under.
const (
	aadPaymentToken  = "payments_token"
	aadTerminalKey   = "terminals_api_key"
	areaPayments     = "payments"
	areaTerminals    = "terminals"
	fetchNone        = "none"
	fetchPending     = "pending"
	fetchDone        = "done"
	fetchFailed      = "failed"
	defaultCheckTime = 30 * time.Second
)
