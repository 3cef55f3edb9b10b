package merchants_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/merchants"
	"github.com/payportal/portal/internal/models"
)

// kindOf names what an error of Authorize means: "" (granted), "404",
// "403", "409".
func kindOf(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, models.ErrNotFound):
		return "404"
	case apperr.KindOf(err) == apperr.KindForbidden:
		return "403"
	case apperr.KindOf(err) == apperr.KindConflict:
		return "409"
	}
	return err.Error()
}

// Least privilege: an invitation grants only what is ticked (nothing by
// default); Authorize refuses a permission not held (403), says 404 for a
// merchant not seen, and hands over the credentials only when granted.
func TestAuthorizeChecksEachPermission(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	id, _, _ := w.boarded(t, w.rep, "Blue Fern")
	otherID, _, _ := w.boarded(t, w.other, "Zephyr Bikes")
	clerk, _, _ := w.member(t, id, "clerk@bluefern.example", merchants.PermTakePayments, merchants.PermVoid)
	viewer, _, _ := w.member(t, id, "viewer@bluefern.example")
	looker, _, _ := w.member(t, id, "looker@bluefern.example", merchants.PermViewOnly)

	perms := func(u *models.User) []string {
		var p []string
		must(t, w.env.DB.Pool.QueryRow(ctx, `SELECT permissions FROM merchant_memberships WHERE user_id = $1`, u.ID).Scan(&p))
		return p
	}
	if got := perms(viewer); len(got) != 0 {
		t.Errorf("nothing ticked granted %v", got)
	}
	if got := perms(clerk); !slices.Equal(got, []string{"take_payments", "void"}) {
		t.Errorf("clerk holds %v", got)
	}
	svc := w.env.App.Merchants
	for _, tt := range []struct {
		name string
		who  *models.User
		m    uuid.UUID
		p    merchants.Permission
		want string
	}{
		{"clerk takes payments", clerk, id, merchants.PermTakePayments, ""},
		{"clerk voids", clerk, id, merchants.PermVoid, ""},
		{"clerk looks", clerk, id, merchants.PermViewOnly, ""},
		{"clerk refunds", clerk, id, merchants.PermRefund, "403"},
		{"clerk uses terminals", clerk, id, merchants.PermUseTerminals, "403"},
		{"no permission looks", viewer, id, merchants.PermViewOnly, "403"},
		{"no permission charges", viewer, id, merchants.PermTakePayments, "403"},
		{"view only looks", looker, id, merchants.PermViewOnly, ""},
		{"view only charges", looker, id, merchants.PermTakePayments, "403"},
		{"admin looks", w.admin, id, merchants.PermViewOnly, ""},
		{"admin refunds", w.admin, id, merchants.PermRefund, "403"},
		{"owning rep charges", w.rep, id, merchants.PermTakePayments, "403"},
		{"another rep looks", w.other, id, merchants.PermViewOnly, "404"},
		{"clerk at another merchant", clerk, otherID, merchants.PermTakePayments, "404"},
	} {
		a, err := svc.Authorize(ctx, tt.who, tt.m, tt.p)
		if got := kindOf(err); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
		if err != nil && a != nil {
			t.Errorf("%s: refused, yet access was given", tt.name)
		}
		if err == nil && (a == nil || a.Merchant.ID != tt.m || strings.Contains(a.String(), "token")) {
			t.Errorf("%s: access %v", tt.name, a)
		}
	}
	_, err := svc.Authorize(ctx, clerk, id, merchants.PermRefund)
	if !strings.Contains(apperr.MessageOf(err), "“Refund” permission") {
		t.Errorf("the refusal does not say which permission: %v", err)
	}
}

// Suspension stops every action but looking, for everyone, at once, and
// shows on the merchant's pages; resuming allows them again. Both are
// audited.
func TestSuspensionStopsPaymentsAndTerminals(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	id, _, _ := w.boarded(t, w.rep, "Blue Fern")
	clerk, _, clerkC := w.member(t, id, "clerk@bluefern.example", merchants.PermTakePayments, merchants.PermUseTerminals)

	w.adminC.Get("/merchants/" + id.String())
	if res := w.adminC.PostForm("/merchants/"+id.String()+"/suspend", url.Values{"reason": {"Chargebacks under review"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("suspend: %d\n%s", res.Status, res.Body)
	}
	m := w.merchant(t, id)
	if !m.Suspended() || !errors.Is(m.CanTransact(), merchants.ErrSuspended) {
		t.Fatalf("after suspending: %+v", m)
	}
	for _, p := range []merchants.Permission{merchants.PermTakePayments, merchants.PermUseTerminals} {
		if _, err := w.env.App.Merchants.Authorize(ctx, clerk, id, p); kindOf(err) != "409" {
			t.Errorf("%s while suspended: %v", p, err)
		}
	}
	if _, err := w.env.App.Merchants.Authorize(ctx, w.admin, id, merchants.PermViewOnly); err != nil {
		t.Errorf("looking while suspended: %v", err)
	}
	page := clerkC.Get("/merchants/" + id.String())
	if !strings.Contains(page.Body, `id="suspended-banner"`) || !strings.Contains(page.Body, "Chargebacks under review") {
		t.Error("the member's page does not say the merchant is suspended")
	}
	if !strings.Contains(w.repC.Get("/merchants").Body, "Suspended") {
		t.Error("the list does not say it")
	}
	if res := w.repC.PostForm("/merchants/"+id.String()+"/resume", nil); res.Status != http.StatusForbidden {
		t.Errorf("a rep resumes: %d", res.Status)
	}
	w.adminC.Get("/merchants/" + id.String())
	if res := w.adminC.PostForm("/merchants/"+id.String()+"/resume", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("resume: %d", res.Status)
	}
	if _, err := w.env.App.Merchants.Authorize(ctx, clerk, id, merchants.PermTakePayments); err != nil {
		t.Errorf("after resuming: %v", err)
	}
	trail := w.actions(t, id)
	if !slices.Contains(trail, "merchant_suspended") || !slices.Contains(trail, "merchant_resumed") {
		t.Errorf("trail = %v", trail)
	}
	if !strings.Contains(w.adminC.Get("/merchants/"+id.String()).Body, "suspended the merchant&#39;s payments and terminals: Chargebacks under review") {
		t.Error("the history does not word the suspension")
	}
}

// The MFA policy: admins, and whoever holds a permission that moves money in
// any membership, must use two-step sign-in (with the 15-minute idle
// limit); sales reps and view-only members need not. Granting such a
// permission to someone without it signs them out, so that their next
// sign-in sets it up; removing them ends their access at the next click.
func TestPermissionsDecideTwoStepSignIn(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	id, _, _ := w.boarded(t, w.rep, "Blue Fern")
	looker, password, lookerC := w.member(t, id, "looker@bluefern.example", merchants.PermViewOnly)
	policy := w.env.App.Merchants.Store().MFAPolicy
	for _, tt := range []struct {
		u    *models.User
		want bool
	}{{w.admin, true}, {w.rep, false}, {looker, false}} {
		if got, err := policy(ctx, tt.u); err != nil || got != tt.want {
			t.Errorf("%s needs MFA = %v (%v), want %v", tt.u.Email, got, err, tt.want)
		}
	}
	if looker.MFAEnabled() {
		t.Fatal("a view-only member was made to set up two-step sign-in")
	}
	if res := lookerC.Get("/merchants/" + id.String()); res.Status != http.StatusOK {
		t.Fatalf("looker: %d", res.Status)
	}

	// The owning rep grants a refund right.
	w.repC.Get("/merchants/" + id.String())
	res := w.repC.PostForm("/merchants/"+id.String()+"/members/"+looker.ID.String(), url.Values{"permissions": {"view_only", "refund"}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("grant refund: %d\n%s", res.Status, res.Body)
	}
	if got, _ := policy(ctx, looker); !got {
		t.Error("a refund right does not require two-step sign-in")
	}
	if res := lookerC.Get("/merchants/" + id.String()); res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Location, "/login") {
		t.Errorf("the session without two-step sign-in goes on: %d %s", res.Status, res.Location)
	}
	c := w.env.Client(t)
	c.Get("/login")
	res = c.PostForm("/login", url.Values{"email": {looker.Email}, "password": {password}})
	if res.Status != http.StatusSeeOther || res.Location != "/login/mfa/setup" {
		t.Errorf("the next sign-in: %d %s, want the two-step set-up", res.Status, res.Location)
	}
	// Set up, the session gets the 15-minute idle limit.
	w.env.EnrolMFA(t, looker)
	c = w.env.Client(t)
	c.Login(looker.Email, password)
	if sec := c.Get("/account/security"); !strings.Contains(sec.Body, "15 minutes") {
		t.Errorf("idle limit not 15 minutes:\n%s", sec.Body)
	}
	if trail := strings.Join(w.actions(t, id), " "); !strings.Contains(trail, "permissions_changed") {
		t.Errorf("trail = %s", trail)
	}
	page := w.adminC.Get("/merchants/" + id.String())
	if !strings.Contains(page.Body, "changed the permissions of Staff looker@bluefern.example to: Refund, View only") {
		t.Error("the history does not say who got what")
	}

	// Removed: their next click finds nothing.
	w.repC.Get("/merchants/" + id.String())
	if res := w.repC.PostForm("/merchants/"+id.String()+"/members/"+looker.ID.String()+"/remove", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("remove: %d", res.Status)
	}
	if res := c.Get("/merchants/" + id.String()); res.Status != http.StatusNotFound {
		t.Errorf("after removal: %d", res.Status)
	}
}

// Inviting: a new person gets the one-time link by e-mail (through the
// outbox), naming the merchant; a merchant user of another merchant is told
// of the new access; the reseller's own people and a second invitation of a
// member are refused with a message beside the field, keeping what was typed.
func TestInvitations(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	id, _, _ := w.boarded(t, w.rep, "Blue Fern")
	id2, _, _ := w.boarded(t, w.rep, "Gingham Goods")
	w.member(t, id, "pat@bluefern.example", merchants.PermTakePayments)
	inv := w.outbox(t, mail.KindInvitation)
	if len(inv) != 1 || !strings.Contains(inv[0].Text, "for Blue Fern") || !inv[0].HasSecretLink() || !strings.Contains(inv[0].Text, mail.LinkPlaceholder) || inv[0].ReplyTo != "admin@example.com" {
		t.Fatalf("invitation e-mail: %+v", inv)
	}

	w.repC.Get("/merchants/" + id2.String())
	res := w.repC.PostForm("/merchants/"+id2.String()+"/members", url.Values{"email": {"PAT@bluefern.example"}, "permissions": {"view_only"}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("add pat to a second merchant: %d\n%s", res.Status, res.Body)
	}
	access := w.outbox(t, mail.KindMerchantAccess)
	if len(access) != 1 || access[0].To != "pat@bluefern.example" || !strings.Contains(access[0].Text, "Gingham Goods") {
		t.Errorf("access notice: %+v", access)
	}
	if n := w.count(t, `SELECT count(*) FROM users WHERE lower(email) = 'pat@bluefern.example'`); n != 1 {
		t.Errorf("%d users for one person", n)
	}

	for _, tt := range []struct{ email, msg string }{
		{"other@example.com", "belongs to one of the reseller&#39;s own users"},
		{"pat@bluefern.example", "is a member of the merchant already"},
		{"not-an-address", "Enter an e-mail address"},
	} {
		w.repC.Get("/merchants/" + id.String())
		res := w.repC.PostForm("/merchants/"+id.String()+"/members", url.Values{"email": {tt.email}, "name": {"Typed Name"}, "permissions": {"refund"}})
		if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, tt.msg) ||
			!strings.Contains(res.Body, `value="Typed Name"`) || !strings.Contains(res.Body, `id="invite-email-error"`) {
			t.Errorf("invite %s: %d\n%s", tt.email, res.Status, res.Body)
		}
	}
	if res := w.repC.PostForm("/merchants/"+id.String()+"/members", url.Values{"email": {"x@y.example"}, "permissions": {"everything"}}); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("an unknown permission: %d", res.Status)
	}
	// The admins' Users page cannot make a merchant user without a merchant.
	w.adminC.Get("/admin/users")
	if res := w.adminC.PostForm("/admin/users", url.Values{"email": {"m@x.example"}, "role": {"merchant"}}); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("an admin creates a merchant user without a merchant: %d", res.Status)
	}
}
