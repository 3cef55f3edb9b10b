package merchants

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/upstream/payments"
)

// PaymentAccess is a merchant as the payments room needs it for one person,
// loaded in one query: the merchant, who the person is to it, and whether it
// has a payment account. The account's token stays sealed until
// OpenPayments has run Authorize's check; the terminal key and the
// locations are not read at all.
type PaymentAccess struct {
	Merchant *Merchant
	Viewer   Viewer
	// HasPaymentAccount reports a payment account on file.
	HasPaymentAccount bool

	oid, sealed string
}

// String never shows a secret.
func (a *PaymentAccess) String() string {
	return "merchant payment access " + a.Merchant.ID.String() + " (credentials hidden)"
}

// PaymentAccessFor loads merchant id as u may see it (Visible's rule: a
// merchant u may not see is models.ErrNotFound), with u's membership and
// whether it has a payment account, in one query (the merchant, LEFT JOIN
// u's membership, LEFT JOIN its payment account). Nothing is decrypted: a
// page that only shows needs no more; an action goes on with OpenPayments.
func (s *Service) PaymentAccessFor(ctx context.Context, u *models.User, id uuid.UUID) (*PaymentAccess, error) {
	var userID uuid.UUID
	if u != nil {
		userID = u.ID
	}
	row, err := s.d.Store.withPayments(ctx, id, userID)
	if err != nil {
		return nil, err
	}
	var member *Permissions
	if row.Member && u.IsMerchantUser() {
		perms := toPermissions(row.Permissions)
		member = &perms
	}
	v, err := viewerOf(u, &row.Merchant, member)
	if err != nil {
		return nil, err
	}
	return row.access(v), nil
}

// PaymentRights is what a person may do with a merchant's payments, as
// Authorize decides it, for the payments room's pages: the permissions held
// (Viewer.Held), whether personal data is shown, and whether there is a
// payment account, told only to someone who may act.
type PaymentRights struct {
	Held              Permissions
	SeesPersonalData  bool
	HasPaymentAccount bool
}

// Rights is a's PaymentRights.
func (a *PaymentAccess) Rights() PaymentRights {
	r := PaymentRights{Held: a.Viewer.Held(), SeesPersonalData: a.Viewer.SeesPersonalData()}
	r.HasPaymentAccount = a.HasPaymentAccount && slices.ContainsFunc(r.Held, func(p Permission) bool { return p != PermViewOnly })
	return r
}

// OpenPayments runs Authorize's check for an action of a's viewer that needs
// p (membership and permission, two-step sign-in for a permission that moves
// money, suspension: the same errors as Authorize) and only then decrypts
// the payment account; nil when the merchant has none.
func (s *Service) OpenPayments(a *PaymentAccess, p Permission) (*payments.Account, error) {
	if !p.Valid() {
		return nil, fmt.Errorf("merchants: unknown permission %q", p)
	}
	if err := allows(a.Merchant, a.Viewer, p); err != nil {
		return nil, err
	}
	return s.openPayments(a)
}

// PaymentsForSystem loads a merchant with its decrypted payment account, in
// one query, for the portal's own background work, which acts for nobody
// (like Credentials, without the terminal key and locations). Never log or
// show what it returns.
func (s *Service) PaymentsForSystem(ctx context.Context, id uuid.UUID) (*Merchant, *payments.Account, error) {
	row, err := s.d.Store.withPayments(ctx, id, uuid.Nil)
	if err != nil {
		return nil, nil, err
	}
	acct, err := s.openPayments(row.access(Viewer{}))
	if err != nil {
		return nil, nil, err
	}
	return &row.Merchant, acct, nil
}

func (s *Service) openPayments(a *PaymentAccess) (*payments.Account, error) {
	if !a.HasPaymentAccount {
		return nil, nil
	}
	token, err := s.open(a.Merchant.ID, aadPaymentToken, a.sealed)
	if err != nil {
		return nil, fmt.Errorf("merchants: open payment token: %w", err)
	}
	return &payments.Account{OID: a.oid, Token: token}, nil
}

// merchantWithPayments is a merchant with one user's membership of it and
// its payment account, as withPayments reads them.
type merchantWithPayments struct {
	Merchant
	Member      bool
	Permissions []string
	OID         *string
	Sealed      *string
}

func (r *merchantWithPayments) access(v Viewer) *PaymentAccess {
	a := &PaymentAccess{Merchant: &r.Merchant, Viewer: v}
	if r.OID != nil && r.Sealed != nil {
		a.HasPaymentAccount, a.oid, a.sealed = true, *r.OID, *r.Sealed
	}
	return a
}

// withPayments loads a merchant, userID's membership of it and its payment
// account in one query; models.ErrNotFound when there is no such merchant.
func (s *Store) withPayments(ctx context.Context, id, userID uuid.UUID) (*merchantWithPayments, error) {
	rows, err := s.Pool.Query(ctx, `SELECT `+merchantColumns+`, mm.user_id IS NOT NULL, mm.permissions, pa.oid, pa.token_sealed
		FROM `+merchantFrom+`
		LEFT JOIN merchant_memberships mm ON mm.merchant_id = m.id AND mm.user_id = $2
		LEFT JOIN merchant_payment_accounts pa ON pa.merchant_id = m.id
		WHERE m.id = $1`, id, userID)
	if err != nil {
		return nil, fmt.Errorf("load merchant: %w", err)
	}
	r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToAddrOfStructByPos[merchantWithPayments])
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, models.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("load merchant: %w", err)
	}
	return r, nil
}
