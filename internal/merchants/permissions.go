package merchants

import (
	"slices"

	"github.com/payportal/portal/internal/apperr"
)

// Permission is one right of a person of a merchant. The list below is the
// one list the payments and terminals rooms check (Service.Authorize).
type Permission string

// The permissions, in the order pages show them.
const (
	// PermTakePayments: keyed card and ACH sales and authorizations.
	PermTakePayments Permission = "take_payments"
	// PermCaptureAdjust: capture an authorization, adjust a sale's tip.
	PermCaptureAdjust Permission = "capture_adjust"
	// PermVoid: void a transaction before it settles.
	PermVoid Permission = "void"
	// PermRefund: refund a transaction, or run a return on a terminal.
	PermRefund Permission = "refund"
	// PermSavedMethods: save cards and bank accounts (with the customer's
	// consent) and remove them.
	PermSavedMethods Permission = "saved_methods"
	// PermUseTerminals: launch transactions on the merchant's terminals.
	PermUseTerminals Permission = "use_terminals"
	// PermViewOnly: see the merchant's transactions and terminals, and do
	// nothing.
	PermViewOnly Permission = "view_only"
)

// PermissionInfo words a permission for people.
type PermissionInfo struct {
	Permission  Permission
	Label       string
	Description string
	// NeedsMFA: holding it requires two-step sign-in and the 15-minute idle
	// limit (PCI DSS 8.4.2, 8.2.8): it takes or reverses money.
	NeedsMFA bool
}

// permissionList is the one list of permissions.
var permissionList = []PermissionInfo{
	{PermTakePayments, "Take payments", "Keyed card and bank (ACH) sales and authorizations in the virtual terminal.", true},
	{PermCaptureAdjust, "Capture and adjust", "Capture authorizations and adjust a sale's tip.", true},
	{PermVoid, "Void", "Cancel a transaction before it settles.", true},
	{PermRefund, "Refund", "Give money back: refunds, and returns on terminals.", true},
	{PermSavedMethods, "Manage saved payment methods", "Save a customer's card or bank account with their consent, and remove it.", false},
	{PermUseTerminals, "Use terminals", "Launch sales and other transactions on the merchant's card terminals.", true},
	{PermViewOnly, "View only", "See transactions and terminals; change nothing.", false},
}

// AllPermissions lists every permission, in the order pages show them.
func AllPermissions() []PermissionInfo { return slices.Clone(permissionList) }

// Info returns the wording of p; ok is false for an unknown permission.
func (p Permission) Info() (PermissionInfo, bool) {
	for _, i := range permissionList {
		if i.Permission == p {
			return i, true
		}
	}
	return PermissionInfo{}, false
}

// Valid reports whether p is one of the permissions.
func (p Permission) Valid() bool { _, ok := p.Info(); return ok }

// Label names p for people.
func (p Permission) Label() string {
	if i, ok := p.Info(); ok {
		return i.Label
	}
	return string(p)
}

// NeedsMFA reports whether holding p requires two-step sign-in.
func (p Permission) NeedsMFA() bool { i, _ := p.Info(); return i.NeedsMFA }

// mfaPermissions are the permissions that require two-step sign-in, for SQL.
func mfaPermissions() []string {
	var out []string
	for _, i := range permissionList {
		if i.NeedsMFA {
			out = append(out, string(i.Permission))
		}
	}
	return out
}

// Permissions is the set a member holds.
type Permissions []Permission

// Has reports whether the set holds p.
func (ps Permissions) Has(p Permission) bool { return slices.Contains(ps, p) }

// NeedMFA reports whether any permission of the set requires two-step
// sign-in.
func (ps Permissions) NeedMFA() bool {
	return slices.ContainsFunc(ps, Permission.NeedsMFA)
}

// Labels words the set, in the order of the one list.
func (ps Permissions) Labels() []string {
	var out []string
	for _, i := range permissionList {
		if ps.Has(i.Permission) {
			out = append(out, i.Label)
		}
	}
	return out
}

// check refuses a set holding a permission that is not on the list (a form the page
// did not send).
func (ps Permissions) check() error {
	for _, p := range ps {
		if !p.Valid() {
			return apperr.Invalid("permissions", "Choose permissions from the list.")
		}
	}
	return nil
}

// normalized keeps known permissions once each, in the order of the list.
func (ps Permissions) normalized() Permissions { return permissionsWhere(ps.Has) }

// permissionsWhere lists the permissions keep accepts, in the order of the
// one list.
func permissionsWhere(keep func(Permission) bool) Permissions {
	out := Permissions{}
	for _, i := range permissionList {
		if keep(i.Permission) {
			out = append(out, i.Permission)
		}
	}
	return out
}

// strings returns the set as text, for the database.
func (ps Permissions) strings() []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = string(p)
	}
	return out
}
