package terminals

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/models"
	upstream "github.com/payportal/portal/internal/upstream/terminals"
)

// Location is one of a merchant's terminal-cloud locations, with what a
// call to the cloud needs.
type Location struct {
	ID       string
	Name     string
	TestMode bool
	// APIKey is the merchant's terminal-cloud key, decrypted for the
	// client only: never shown, logged or stored by this room.
	APIKey string
}

// Cloud is the location as the upstream client takes it.
func (l Location) Cloud() upstream.Location {
	return upstream.Location{ID: l.ID, APIKey: l.APIKey, TestMode: l.TestMode}
}

// Merchant is what the room needs of a merchant.
type Merchant struct {
	ID        uuid.UUID
	Name      string
	Suspended bool
	Locations []Location
}

// Location returns the merchant's location id, or false.
func (m *Merchant) Location(id string) (Location, bool) {
	for _, l := range m.Locations {
		if l.ID == id {
			return l, true
		}
	}
	return Location{}, false
}

// Access is what a user may do with a merchant's terminals.
type Access struct {
	Merchant *Merchant
	// Staff is set for the reseller's people (admins, the owning sales
	// rep): they install terminals and may run save card and test-mode
	// test amounts only, never returns, voids or tips.
	Staff bool
	// The merchant user's rights, from their membership.
	UseTerminals bool
	Refund       bool
	Void         bool
	Adjust       bool
}

// Merchants is what the room needs of the merchants room.
type Merchants interface {
	// TerminalAccess loads the merchant with its locations and says what u
	// may do with its terminals; models.ErrNotFound (or an apperr of kind
	// not found) when u may not see the merchant at all.
	TerminalAccess(ctx context.Context, u *models.User, merchantID uuid.UUID) (*Access, error)
	// TerminalMerchant loads a merchant with its locations for the
	// background follower, which acts for no user.
	TerminalMerchant(ctx context.Context, merchantID uuid.UUID) (*Merchant, error)
}

// StaffTestLimitCents is the largest test amount the reseller's people may
// run while installing a terminal: the sandbox's and the processors' test
// amounts are all below a dollar.
const StaffTestLimitCents = 100

// errForbidden builds the refusal of an act the user's rights do not cover.
func errForbidden(msg string) error { return apperr.New(apperr.KindForbidden, "%s", msg) }

// mayLaunch checks that a can launch kind (amount in cents) at loc; it
// returns a refusal worded for people.
func (a *Access) mayLaunch(kind Kind, amount int64, loc Location) error {
	if a.Merchant.Suspended {
		return apperr.New(apperr.KindConflict, "This merchant is suspended: nothing can be launched on its terminals until an admin lifts the suspension.")
	}
	if a.Staff {
		return installerMayLaunch(kind, amount, loc)
	}
	if !a.UseTerminals {
		return errForbidden("You do not have the right to use this merchant's terminals.")
	}
	if need, ok := moneyRights[kind]; ok && !need.held(a) {
		return errForbidden(need.refusal)
	}
	return nil
}

// mayTry refuses, before anything of a request is read but its kind, a user whose
// rights can never allow it: someone who may launch nothing, or not this kind. What
// depends on the rest of the request (a test amount's size, the location's test mode)
// mayLaunch checks once the request is read. An unknown kind is the plan's to word.
func (a *Access) mayTry(kind Kind) error {
	if !kind.Valid() {
		kind = KindSale // the kind anyone who may launch anything may try
	}
	return a.mayLaunch(kind, 1, Location{TestMode: true})
}

// installerMayLaunch checks a launch by the reseller's people, who install
// terminals: save card, and sales of test amounts on test locations.
func installerMayLaunch(kind Kind, amount int64, loc Location) error {
	switch {
	case kind == KindSaveCard:
		return nil
	case kind == KindSale && loc.TestMode && amount <= StaffTestLimitCents:
		return nil
	case kind == KindSale && !loc.TestMode:
		return errForbidden("Installers run sales only on locations in test mode.")
	case kind == KindSale:
		return errForbidden("Installers run test amounts only: at most 1.00.")
	}
	return errForbidden("Installers may run save card and test amounts only; the merchant's own staff run " + kind.Label() + ".")
}

// moneyRights are the kinds a merchant user launches only with a right beyond
// using the terminals: the right that moves that money, and the refusal's words.
var moneyRights = map[Kind]struct {
	held    func(a *Access) bool
	refusal string
}{
	KindReturn: {func(a *Access) bool { return a.Refund }, "Returns need the refund right."},
	KindVoid:   {func(a *Access) bool { return a.Void }, "Voids need the void right."},
	KindTip:    {func(a *Access) bool { return a.Adjust }, "Adding a tip needs the capture and adjust right."},
}

// CanLaunch reports whether a may launch at least something.
func (a *Access) CanLaunch() bool { return !a.Merchant.Suspended && (a.Staff || a.UseTerminals) }

// Offers reports whether the pages offer kind to a (at a location in
// testMode or not), without the amount.
func (a *Access) Offers(kind Kind, testMode bool) bool {
	if a.Merchant.Suspended {
		return false
	}
	if a.Staff {
		return kind == KindSaveCard || (kind == KindSale && testMode)
	}
	return a.mayLaunch(kind, 1, Location{TestMode: testMode}) == nil
}

// notFound reports a not-found error of any of the portal's shapes.
func notFound(err error) bool {
	return errors.Is(err, models.ErrNotFound) || apperr.KindOf(err) == apperr.KindNotFound
}
