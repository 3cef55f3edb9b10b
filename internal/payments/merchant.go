package payments

import (
	"context"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/models"
	upstream "github.com/payportal/portal/internal/upstream/payments"
)

// Permission is a merchant user's right, from the one list the merchants room
// grants (internal/app maps the merchants room's names onto these).
type Permission string

// The rights the payments room checks.
const (
	// PermView: see the ledger, batches and transactions.
	PermView Permission = "view"
	// PermTakePayments: card and ACH sales, authorizations, saved-method payments.
	PermTakePayments Permission = "take_payments"
	// PermCaptureAdjust: capture authorizations, adjust tips.
	PermCaptureAdjust Permission = "capture_adjust"
	PermVoid          Permission = "void"
	PermRefund        Permission = "refund"
	// PermSavedMethods: customers' saved cards and bank accounts.
	PermSavedMethods Permission = "saved_methods"
)

// Merchant is what the payments room knows of a merchant, as one user may act
// on it: its name, its payment account (the credentials are for the upstream
// client only, never shown), whether its payments are suspended, and the
// user's rights on it.
type Merchant struct {
	ID   uuid.UUID
	Name string
	// Account is the direct payment account, loaded only for an action (and
	// for background work); empty OID when the merchant has no payment
	// credentials yet.
	Account upstream.Account
	// HasPaymentAccount reports credentials on file (without loading them).
	HasPaymentAccount bool
	// Suspended merchants cannot transact (an admin's decision).
	Suspended bool
	// Rights are the acting user's; empty for background work.
	Rights map[Permission]bool
	// SeesPersonalData lets the user read cardholders' and customers' names,
	// e-mail addresses and billing addresses (merchant users; reps see totals
	// and masked cards only).
	SeesPersonalData bool
}

// Can reports whether the acting user holds p on the merchant. Every right
// implies viewing.
func (m *Merchant) Can(p Permission) bool {
	if p == PermView {
		return len(m.Rights) > 0
	}
	return m.Rights[p]
}

// HasAccount reports payment credentials loaded for an action.
func (m *Merchant) HasAccount() bool { return m.Account.OID != "" && m.Account.Token != "" }

// CanTransact reports whether actions may be offered: not suspended, and
// with a payment account on file.
func (m *Merchant) CanTransact() bool { return !m.Suspended && (m.HasPaymentAccount || m.HasAccount()) }

// Merchants is the access the payments room needs of the merchants room.
// internal/app adapts the merchants room's service to it.
type Merchants interface {
	// ForUser loads a merchant as u may see it, with u's rights on it but
	// without credentials (models.ErrNotFound when u may not see it): for
	// pages that only show, it decrypts nothing.
	ForUser(ctx context.Context, u *models.User, merchantID uuid.UUID) (*Merchant, error)
	// ForAction loads a merchant as u may see it, with u's rights, for an
	// action, in one call: choose picks the right the action needs from
	// what was loaded, or refuses in the payments room's words; then the
	// merchants room's own check of that right (membership, two-step
	// sign-in, suspension) decides, and only then is the payment account
	// decrypted into Account (empty when the merchant has none).
	ForAction(ctx context.Context, u *models.User, merchantID uuid.UUID, choose func(*Merchant) (Permission, error)) (*Merchant, error)
	// ForSystem loads a merchant with its payment account, for background
	// work (reading back an unknown outcome).
	ForSystem(ctx context.Context, merchantID uuid.UUID) (*Merchant, error)
}

// authorize loads the merchant for u and checks p; for any right but
// viewing, also that the merchant may transact, with its payment account.
func authorize(ctx context.Context, ms Merchants, u *models.User, merchantID uuid.UUID, p Permission) (*Merchant, error) {
	if p != PermView {
		return authorizeAction(ctx, ms, u, merchantID, func(m *Merchant) (Permission, error) { return p, refusal(m, p) })
	}
	m, err := ms.ForUser(ctx, u, merchantID)
	if err != nil {
		return nil, err
	}
	if err := refusal(m, PermView); err != nil {
		return nil, err
	}
	return m, nil
}

// authorizeAction loads the merchant for an action of u's whose right choose
// picks (or refuses), with its payment account: the merchant is loaded once.
func authorizeAction(ctx context.Context, ms Merchants, u *models.User, merchantID uuid.UUID, choose func(*Merchant) (Permission, error)) (*Merchant, error) {
	m, err := ms.ForAction(ctx, u, merchantID, choose)
	if err != nil {
		return nil, err
	}
	if !m.HasAccount() {
		return nil, apperr.New(apperr.KindConflict, "%s", msgNoAccount)
	}
	return m, nil
}

// refusal is the payments room's own refusal of p on m, in its words: a
// merchant u may not see, a right u does not hold, a suspended merchant.
func refusal(m *Merchant, p Permission) error {
	switch {
	case !m.Can(PermView):
		return models.ErrNotFound
	case !m.Can(p):
		return forbidden(p)
	case p != PermView && m.Suspended:
		return apperr.New(apperr.KindConflict, "%s", msgSuspended)
	}
	return nil
}

// forbidden refuses an action the user has no right to.
func forbidden(p Permission) error { return apperr.New(apperr.KindForbidden, "%s", msgNoRight(p)) }
