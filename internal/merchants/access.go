package merchants

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/upstream/payments"
	"github.com/payportal/portal/internal/upstream/terminals"
)

// Viewer is who looks at a merchant, and what they may do there.
type Viewer struct {
	User *models.User
	// Admin, OwnerRep: the reseller's people with rights on the merchant.
	Admin    bool
	OwnerRep bool
	// Member is set for a merchant user: their permissions here.
	Member      bool
	Permissions Permissions
}

// Staff reports whether the viewer is an admin or the owning rep.
func (v Viewer) Staff() bool { return v.Admin || v.OwnerRep }

// errStaffOnly refuses what only admins and the owning rep may do.
var errStaffOnly = apperr.New(apperr.KindForbidden, "Only an admin or the merchant's sales rep can do this.")

// errAdminOnly refuses what only admins may do.
var errAdminOnly = apperr.New(apperr.KindForbidden, "Only an admin can do this.")

// Visible loads a merchant u may see, and what u is to it: admins see every
// merchant, a sales rep those whose application they own, a merchant user
// those they are a member of. Anything else is models.ErrNotFound (404), so
// that nobody learns that another's merchant exists.
func (s *Service) Visible(ctx context.Context, u *models.User, id uuid.UUID) (*Merchant, Viewer, error) {
	m, err := s.d.Store.Get(ctx, nil, id)
	if err != nil {
		return nil, Viewer{}, err
	}
	var member *Permissions
	if u.IsMerchantUser() && u.Active {
		perms, err := s.d.Store.membership(ctx, nil, id, u.ID)
		if err != nil && !isNotFound(err) {
			return nil, Viewer{}, err
		}
		if err == nil {
			member = &perms
		}
	}
	v, err := viewerOf(u, m, member)
	if err != nil {
		return nil, Viewer{}, err
	}
	return m, v, nil
}

// viewerOf is Visible's rule: what u is to m, given u's membership of m (nil
// when u is not a member). A merchant u may not see is models.ErrNotFound.
func viewerOf(u *models.User, m *Merchant, member *Permissions) (Viewer, error) {
	v := Viewer{User: u}
	switch {
	case u == nil || !u.Active:
		return Viewer{}, models.ErrNotFound
	case u.IsAdmin():
		v.Admin = true
	case u.Role == models.RoleSalesRep && m.OwnerID == u.ID:
		v.OwnerRep = true
	case u.IsMerchantUser() && member != nil:
		v.Member, v.Permissions = true, *member
	default:
		return Viewer{}, models.ErrNotFound // not a member of that merchant
	}
	return v, nil
}

// List returns the merchants u may see, by name: all for admins, a rep's
// own, a merchant user's memberships.
func (s *Service) List(ctx context.Context, u *models.User) ([]Merchant, error) {
	switch {
	case u.IsAdmin():
		return s.d.Store.list(ctx, listFilter{})
	case u.Role == models.RoleSalesRep:
		return s.d.Store.list(ctx, listFilter{OwnerID: &u.ID})
	case u.IsMerchantUser():
		return s.d.Store.list(ctx, listFilter{MemberID: &u.ID})
	}
	return nil, nil
}

// Access is what Authorize grants: the merchant, and for the upstream
// clients only, its decrypted credentials. Never log it or put it in a page.
type Access struct {
	Merchant *Merchant
	// Payments is the direct payment account; nil when none is set.
	Payments *payments.Account
	// Locations are the terminal cloud locations with the API key and their
	// test mode; empty when no key or location is set.
	Locations []terminals.Location
}

// String never shows a secret.
func (a *Access) String() string {
	return "merchant access " + a.Merchant.ID.String() + " (credentials hidden)"
}

// errNeedsMFA refuses a payment right to someone signed in without a second
// factor (they were granted it mid-session; the next sign-in sets it up).
var errNeedsMFA = apperr.New(apperr.KindForbidden, "This needs two-step sign-in. Sign out and in again to set it up.")

// errNoPermission refuses an action the member's permissions do not include.
func errNoPermission(p Permission) error {
	return apperr.New(apperr.KindForbidden, "You do not have the “%s” permission for this merchant. Ask an admin or the merchant's sales rep for it.", p.Label())
}

// Authorize checks that u may do what p allows on merchant id, and returns
// the merchant with its credentials decrypted for the upstream clients. A
// merchant u may not see is models.ErrNotFound (404); a permission u does
// not hold is apperr.KindForbidden (403); any action but PermViewOnly on a
// suspended merchant is ErrSuspended (409). Admins and the owning sales rep
// hold PermViewOnly (the ledger without personal data); every other
// permission needs a membership that grants it. A permission that moves
// money also needs two-step sign-in to be on. It decides every
// merchant-scoped action: the payments room's (PaymentAccessFor and
// OpenPayments run the same check on one query) and the terminals room's
// (Viewer.TerminalRights) go through the same rule.
//
// The caller records its action in the merchant's audit trail
// (audit.Merchant(id)), in the transaction of the action.
func (s *Service) Authorize(ctx context.Context, u *models.User, id uuid.UUID, p Permission) (*Access, error) {
	if !p.Valid() {
		return nil, fmt.Errorf("merchants: unknown permission %q", p)
	}
	m, v, err := s.Visible(ctx, u, id)
	if err != nil {
		return nil, err
	}
	if err := allows(m, v, p); err != nil {
		return nil, err
	}
	return s.credentials(ctx, m)
}

// allows is Authorize's check of what v may do on m: what v may do at all
// (Viewer.may), and any action but PermViewOnly needs a merchant that is not
// suspended.
func allows(m *Merchant, v Viewer, p Permission) error {
	if err := v.may(p); err != nil {
		return err
	}
	if p != PermViewOnly {
		return m.CanTransact()
	}
	return nil
}

// holds reports whether v holds p: the reseller's people (admins, the owning
// rep) hold PermViewOnly; a member holds what the membership grants, and
// PermViewOnly with any of it (who may act may also look).
func (v Viewer) holds(p Permission) bool {
	switch {
	case v.Staff():
		return p == PermViewOnly
	case v.Member && p == PermViewOnly:
		return len(v.Permissions) > 0
	case v.Member:
		return v.Permissions.Has(p)
	}
	return false
}

// may is what v may do whatever the merchant's state: p held, and two-step
// sign-in on when p moves money.
func (v Viewer) may(p Permission) error {
	switch {
	case !v.holds(p):
		return errNoPermission(p)
	case p.NeedsMFA() && !v.User.MFAEnabled():
		return errNeedsMFA
	}
	return nil
}

// Held lists the permissions v holds, in the order of the one list, two-step
// sign-in aside: pages offer what they allow, and Authorize (OpenPayments)
// says at the action when two-step sign-in is missing.
func (v Viewer) Held() Permissions { return permissionsWhere(v.holds) }

// SeesPersonalData reports whether v may read cardholders' and customers'
// names, e-mail and billing addresses: the merchant's own people. The
// reseller's people see totals and masked cards only.
func (v Viewer) SeesPersonalData() bool { return v.Member }

// TerminalRights is what a viewer may do with a merchant's terminals, as
// Authorize decides each permission (membership, permission, two-step
// sign-in); suspension is checked at each launch.
type TerminalRights struct {
	// Install: the reseller's people (admins, the owning rep) install
	// terminals; the terminals room says what an installer may run.
	Install bool
	// Use, Refund, Void, Adjust: PermUseTerminals, PermRefund, PermVoid and
	// PermCaptureAdjust as Authorize grants them.
	Use, Refund, Void, Adjust bool
}

// TerminalRights is v's TerminalRights.
func (v Viewer) TerminalRights() TerminalRights {
	return TerminalRights{
		Install: v.Staff(),
		Use:     v.may(PermUseTerminals) == nil,
		Refund:  v.may(PermRefund) == nil,
		Void:    v.may(PermVoid) == nil,
		Adjust:  v.may(PermCaptureAdjust) == nil,
	}
}

// credentials decrypts a merchant's credentials.
func (s *Service) credentials(ctx context.Context, m *Merchant) (*Access, error) {
	a := &Access{Merchant: m}
	pa, err := s.d.Store.paymentAccount(ctx, nil, m.ID)
	if err != nil {
		return nil, err
	}
	if pa != nil {
		token, err := s.open(m.ID, aadPaymentToken, pa.sealed)
		if err != nil {
			return nil, fmt.Errorf("merchants: open payment token: %w", err)
		}
		a.Payments = &payments.Account{OID: pa.OID, Token: token}
	}
	ta, err := s.d.Store.terminalAccount(ctx, nil, m.ID)
	if err != nil || ta == nil {
		return a, err
	}
	key, err := s.open(m.ID, aadTerminalKey, ta.sealed)
	if err != nil {
		return nil, fmt.Errorf("merchants: open terminal API key: %w", err)
	}
	locs, err := s.d.Store.locations(ctx, nil, m.ID)
	if err != nil {
		return nil, err
	}
	for _, l := range locs {
		a.Locations = append(a.Locations, terminals.Location{ID: l.LocationID, APIKey: key, TestMode: l.TestMode})
	}
	return a, nil
}

// MFAPolicy is the portal's auth.MFAPolicy: admins, and anyone who holds in
// any membership a permission that takes or reverses money (take payments,
// capture and adjust, void, refund, use terminals), must sign in with two
// steps and get the 15-minute idle limit. It is asked at every sign-in.
// The wiring builds the auth service with it before this service exists, so
// it is the store's.
func (s *Store) MFAPolicy(ctx context.Context, u *models.User) (bool, error) {
	switch {
	case u == nil:
		return false, nil
	case u.IsAdmin():
		return true, nil
	case u.IsMerchantUser():
		return s.holdsMFAPermission(ctx, u.ID)
	}
	return false, nil
}

// errNoLocation: no live location of the merchant has that id.
var errNoLocation = apperr.New(apperr.KindNotFound, "There is no such location of this merchant; reload the page.")

// isNotFound reports a row that is not there.
func isNotFound(err error) bool { return errors.Is(err, models.ErrNotFound) }

// Credentials loads a merchant with its decrypted credentials for the
// portal's own background work, which acts for nobody (reading back a
// payment whose answer was lost): no user, no permission. A person's action
// goes through Authorize. Never log or show what it returns.
func (s *Service) Credentials(ctx context.Context, id uuid.UUID) (*Access, error) {
	m, err := s.d.Store.Get(ctx, nil, id)
	if err != nil {
		return nil, err
	}
	return s.credentials(ctx, m)
}
