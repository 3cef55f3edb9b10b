package merchants

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/models"
)

// The rule of Authorize, every permission × role × two-step sign-in ×
// suspension. A row's want lists, in the order of the one permission list
// (take_payments, capture_adjust, void, refund, saved_methods,
// use_terminals, view_only), what Authorize answers:
//
//	ok   granted
//	403  the permission is not held
//	mfa  held, but two-step sign-in is off (403, saying so)
//	409  held, but the merchant is suspended
//	404  the merchant is not visible
func TestAuthorizeRule(t *testing.T) {
	owner, stranger := uuid.New(), uuid.New()
	all := Permissions{PermTakePayments, PermCaptureAdjust, PermVoid, PermRefund, PermSavedMethods, PermUseTerminals, PermViewOnly}
	clerk := Permissions{PermTakePayments, PermVoid}
	looker := Permissions{PermViewOnly}
	none := Permissions{}
	type who struct {
		role   models.Role
		active bool
		id     uuid.UUID
		member *Permissions // nil: no membership of the merchant
	}
	var (
		admin       = who{models.RoleAdmin, true, uuid.New(), nil}
		owningRep   = who{models.RoleSalesRep, true, owner, nil}
		otherRep    = who{models.RoleSalesRep, true, stranger, nil}
		memberAll   = who{models.RoleMerchant, true, uuid.New(), &all}
		memberClerk = who{models.RoleMerchant, true, uuid.New(), &clerk}
		memberLook  = who{models.RoleMerchant, true, uuid.New(), &looker}
		memberNone  = who{models.RoleMerchant, true, uuid.New(), &none}
		inactive    = who{models.RoleMerchant, false, uuid.New(), &all}
		outsider    = who{models.RoleMerchant, true, uuid.New(), nil}
	)
	for _, tt := range []struct {
		name       string
		who        who
		mfa, susp  bool
		want       string
		nobodyUser bool
	}{
		{"admin", admin, true, false, "403 403 403 403 403 403 ok", false},
		{"admin without two-step", admin, false, false, "403 403 403 403 403 403 ok", false},
		{"admin, suspended", admin, true, true, "403 403 403 403 403 403 ok", false},
		{"admin without two-step, suspended", admin, false, true, "403 403 403 403 403 403 ok", false},
		{"owning rep", owningRep, true, false, "403 403 403 403 403 403 ok", false},
		{"owning rep without two-step", owningRep, false, false, "403 403 403 403 403 403 ok", false},
		{"owning rep, suspended", owningRep, true, true, "403 403 403 403 403 403 ok", false},
		{"owning rep without two-step, suspended", owningRep, false, true, "403 403 403 403 403 403 ok", false},
		{"another rep", otherRep, true, false, "404 404 404 404 404 404 404", false},
		{"another rep, suspended", otherRep, false, true, "404 404 404 404 404 404 404", false},
		{"member with every permission", memberAll, true, false, "ok ok ok ok ok ok ok", false},
		{"member with every permission, suspended", memberAll, true, true, "409 409 409 409 409 409 ok", false},
		{"member with every permission without two-step", memberAll, false, false, "mfa mfa mfa mfa ok mfa ok", false},
		{"member with every permission without two-step, suspended", memberAll, false, true, "mfa mfa mfa mfa 409 mfa ok", false},
		{"clerk (take payments, void)", memberClerk, true, false, "ok 403 ok 403 403 403 ok", false},
		{"clerk, suspended", memberClerk, true, true, "409 403 409 403 403 403 ok", false},
		{"clerk without two-step", memberClerk, false, false, "mfa 403 mfa 403 403 403 ok", false},
		{"clerk without two-step, suspended", memberClerk, false, true, "mfa 403 mfa 403 403 403 ok", false},
		{"view only", memberLook, true, false, "403 403 403 403 403 403 ok", false},
		{"view only, suspended", memberLook, false, true, "403 403 403 403 403 403 ok", false},
		{"member without permissions", memberNone, true, false, "403 403 403 403 403 403 403", false},
		{"member without permissions, suspended", memberNone, false, true, "403 403 403 403 403 403 403", false},
		{"deactivated member", inactive, true, false, "404 404 404 404 404 404 404", false},
		{"merchant user of another merchant", outsider, true, false, "404 404 404 404 404 404 404", false},
		{"nobody", who{}, false, false, "404 404 404 404 404 404 404", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := &Merchant{ID: uuid.New(), OwnerID: owner}
			if tt.susp {
				at := time.Now()
				m.SuspendedAt = &at
			}
			var u *models.User
			if !tt.nobodyUser {
				u = &models.User{Role: tt.who.role, Active: tt.who.active}
				u.ID = tt.who.id
				if tt.mfa {
					at := time.Now()
					u.MFAEnabledAt = &at
				}
			}
			want := strings.Fields(tt.want)
			v, visible := viewerOf(u, m, tt.who.member)
			rights := v.TerminalRights()
			for i, info := range permissionList {
				p := info.Permission
				got := "404"
				if visible == nil {
					got = outcome(allows(m, v, p))
				}
				if got != want[i] {
					t.Errorf("%s: %s, want %s", p, got, want[i])
				}
				// What the pages offer follows the same rule: payments show what
				// is held (two-step sign-in is asked at the action), terminals
				// what Authorize grants whatever the suspension (the launch
				// checks it).
				heldUnsuspended := want[i] == "ok" || want[i] == "mfa" || want[i] == "409"
				if v.Held().Has(p) != heldUnsuspended {
					t.Errorf("%s: held %v, want %v", p, v.Held().Has(p), heldUnsuspended)
				}
				grantedUnsuspended := want[i] == "ok" || (want[i] == "409" && (tt.mfa || !p.NeedsMFA()))
				if r, ok := terminalRight(rights, p); ok && r != grantedUnsuspended {
					t.Errorf("%s: terminal right %v, want %v", p, r, grantedUnsuspended)
				}
			}
			if rights.Install != (visible == nil && (tt.who.role == models.RoleAdmin || tt.who.id == owner)) {
				t.Errorf("install: %v", rights.Install)
			}
			if v.SeesPersonalData() != (visible == nil && tt.who.member != nil) {
				t.Errorf("sees personal data: %v", v.SeesPersonalData())
			}
		})
	}
}

// outcome names what allows answered, as the table writes it.
func outcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, ErrSuspended):
		return "409"
	case errors.Is(err, errNeedsMFA):
		return "mfa"
	case apperr.KindOf(err) == apperr.KindForbidden:
		return "403"
	}
	return err.Error()
}

// terminalRight is the field of TerminalRights that holds p, if any.
func terminalRight(r TerminalRights, p Permission) (bool, bool) {
	switch p {
	case PermUseTerminals:
		return r.Use, true
	case PermRefund:
		return r.Refund, true
	case PermVoid:
		return r.Void, true
	case PermCaptureAdjust:
		return r.Adjust, true
	}
	return false, false
}
