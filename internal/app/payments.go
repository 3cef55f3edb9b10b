package app

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/config"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/jobs"
	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/merchants"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/payments"
	upstream "github.com/payportal/portal/internal/upstream/payments"
)

// paymentParts are what the payments room is built from.
type paymentParts struct {
	Config    *config.Config
	DB        *database.DB
	Ring      *fieldcrypt.KeyRing
	Merchants *merchants.Service
	Client    *upstream.Client // nil when PORTAL_PAYMENTS_BASE_URL is not set
	Queue     *jobs.Queue
	Outbox    *mail.Outbox
	// Announcer tells partners of the ledger's answers.
	Announcer payments.Announcer
	Now       func() time.Time
	Log       *slog.Logger
}

// wirePayments builds the payments room (virtual terminal and ledger) and
// registers its background check of unknown outcomes.
func wirePayments(p paymentParts) *payments.Service {
	var up payments.Upstream = noPaymentsAPI{}
	if p.Client != nil {
		up = p.Client
	}
	c := p.Config.Payments
	return payments.NewService(payments.Deps{
		Pool: p.DB.Pool, Ring: p.Ring, Ledger: payments.NewLedger(p.DB.Pool, p.Ring, p.Now).AnnounceTo(p.Announcer), Upstream: up,
		Merchants: merchantAccess{svc: p.Merchants}, Queue: p.Queue, Outbox: p.Outbox,
		Config: payments.Config{DuplicateWindow: c.DuplicateWindow, CheckGrace: c.CheckGrace, CheckEvery: c.CheckEvery,
			CallTimeout: c.CallTimeout, ResellerName: p.Config.ResellerName},
		Now: p.Now, Log: p.Log.With("component", "payments"),
	})
}

// merchantAccess adapts the merchants room to what the payments room
// declares it needs (payments.Merchants). It converts types only: who may do
// what is the merchants room's (PaymentAccess.Rights, OpenPayments).
type merchantAccess struct{ svc *merchants.Service }

// toPayments and fromPayments map the one permission list onto the payments
// room's names (they are the same words but "view_only").
func toPayments(p merchants.Permission) payments.Permission {
	if p == merchants.PermViewOnly {
		return payments.PermView
	}
	return payments.Permission(p)
}

func fromPayments(p payments.Permission) merchants.Permission {
	if p == payments.PermView {
		return merchants.PermViewOnly
	}
	return merchants.Permission(p)
}

// ForUser loads the merchant with the user's rights, in one query, and
// decrypts nothing.
func (a merchantAccess) ForUser(ctx context.Context, u *models.User, id uuid.UUID) (*payments.Merchant, error) {
	acc, err := a.svc.PaymentAccessFor(ctx, u, id)
	if err != nil {
		return nil, err
	}
	return paymentsMerchant(acc), nil
}

// ForAction loads the merchant once (one query), lets the payments room
// choose the right and refuse first in its words, then the merchants room
// decides (OpenPayments: Authorize's check) before the payment account is
// decrypted.
func (a merchantAccess) ForAction(ctx context.Context, u *models.User, id uuid.UUID,
	choose func(*payments.Merchant) (payments.Permission, error)) (*payments.Merchant, error) {
	acc, err := a.svc.PaymentAccessFor(ctx, u, id)
	if err != nil {
		return nil, err
	}
	pm := paymentsMerchant(acc)
	p, err := choose(pm)
	if err != nil {
		return nil, err
	}
	acct, err := a.svc.OpenPayments(acc, fromPayments(p))
	if err != nil {
		return nil, err
	}
	if acct != nil {
		pm.Account = *acct
	}
	return pm, nil
}

// paymentsMerchant is the merchant as the payments room sees it, with the
// rights the merchants room gives the viewer.
func paymentsMerchant(acc *merchants.PaymentAccess) *payments.Merchant {
	r := acc.Rights()
	pm := &payments.Merchant{ID: acc.Merchant.ID, Name: acc.Merchant.Name, Suspended: acc.Merchant.Suspended(),
		Rights: map[payments.Permission]bool{}, SeesPersonalData: r.SeesPersonalData, HasPaymentAccount: r.HasPaymentAccount}
	for _, p := range r.Held {
		pm.Rights[toPayments(p)] = true
	}
	return pm
}

// ForSystem loads the merchant with its payment account for background work.
func (a merchantAccess) ForSystem(ctx context.Context, id uuid.UUID) (*payments.Merchant, error) {
	m, acct, err := a.svc.PaymentsForSystem(ctx, id)
	if err != nil {
		return nil, err
	}
	pm := &payments.Merchant{ID: m.ID, Name: m.Name, Suspended: m.Suspended()}
	if acct != nil {
		pm.Account, pm.HasPaymentAccount = *acct, true
	}
	return pm, nil
}

// errNoPaymentsAPI: the portal has no address for the direct payment API.
var errNoPaymentsAPI = errors.New("the direct payment API's address (PORTAL_PAYMENTS_BASE_URL) is not configured")

// noPaymentsAPI stands in for the client when no address is configured:
// every call fails before anything is sent.
type noPaymentsAPI struct{}

func (noPaymentsAPI) Sale(context.Context, upstream.Account, upstream.CardPayment) (*upstream.Transaction, error) {
	return nil, errNoPaymentsAPI
}
func (noPaymentsAPI) Authorize(context.Context, upstream.Account, upstream.CardPayment) (*upstream.Transaction, error) {
	return nil, errNoPaymentsAPI
}
func (noPaymentsAPI) Force(context.Context, upstream.Account, upstream.Force) (*upstream.Transaction, error) {
	return nil, errNoPaymentsAPI
}
func (noPaymentsAPI) Void(context.Context, upstream.Account, upstream.VoidRequest) (*upstream.Transaction, error) {
	return nil, errNoPaymentsAPI
}
func (noPaymentsAPI) Adjust(context.Context, upstream.Account, upstream.Adjustment) (*upstream.Transaction, error) {
	return nil, errNoPaymentsAPI
}
func (noPaymentsAPI) TokenizedRefund(context.Context, upstream.Account, upstream.TokenizedRefund) (*upstream.Transaction, error) {
	return nil, errNoPaymentsAPI
}
func (noPaymentsAPI) TokenizedPayment(context.Context, upstream.Account, upstream.TokenizedPayment) (*upstream.Transaction, error) {
	return nil, errNoPaymentsAPI
}
func (noPaymentsAPI) TokenizedAuthorization(context.Context, upstream.Account, upstream.TokenizedPayment) (*upstream.Transaction, error) {
	return nil, errNoPaymentsAPI
}
func (noPaymentsAPI) ACHSale(context.Context, upstream.Account, upstream.ACHPayment) (*upstream.Transaction, error) {
	return nil, errNoPaymentsAPI
}
func (noPaymentsAPI) TokenizeCard(context.Context, upstream.Account, upstream.CardTokenize) (*upstream.Transaction, error) {
	return nil, errNoPaymentsAPI
}
func (noPaymentsAPI) TokenizeBankAccount(context.Context, upstream.Account, upstream.ACHTokenize) (*upstream.Transaction, error) {
	return nil, errNoPaymentsAPI
}
func (noPaymentsAPI) Get(context.Context, upstream.Account, string) (*upstream.Transaction, error) {
	return nil, errNoPaymentsAPI
}
