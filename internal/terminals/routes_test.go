package terminals_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/merchants"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/terminals"
	"github.com/payportal/portal/internal/testutil/apptest"
)

// termRoute is one terminals route with a request that would work for
// someone allowed to make it.
type termRoute struct {
	name, method, path string
	form               url.Values
	// view: anyone who sees the merchant; launch: someone who may launch
	// the request's kind.
	view bool
}

func termRoutes(p *portal, launchID uuid.UUID) []termRoute {
	base := terminals.Path(p.merchantID)
	l := terminals.LaunchPath(p.merchantID, launchID)
	sale := url.Values{"form_token": {uuid.NewString()}, "kind": {"sale"}, "location": {p.locationID}, "device": {"TABLE-D210"}, "amount": {"0.50"}}
	return []termRoute{
		{"devices", http.MethodGet, base, nil, true},
		{"refresh", http.MethodPost, base + "/refresh", url.Values{"location": {p.locationID}}, false},
		{"launch form", http.MethodGet, base + "/launch?kind=sale&location=" + p.locationID + "&device=TABLE-D210", nil, false},
		{"launch", http.MethodPost, base + "/launches", sale, false},
		{"launch page", http.MethodGet, l, nil, true},
		{"launch status", http.MethodGet, l + "/status", nil, true},
		{"confirm", http.MethodPost, l + "/confirm", url.Values{"outcome": {"cancelled"}}, false},
		{"resend", http.MethodPost, l + "/resend", url.Values{"form_token": {uuid.NewString()}, "understood": {"true"}}, false},
	}
}

func (r termRoute) do(c *apptest.Client) apptest.Response {
	if r.method == http.MethodGet {
		return c.Get(r.path)
	}
	return c.PostForm(r.path, r.form)
}

// Every terminals route for every role: another rep and a merchant user of
// another merchant get 404 (telling nothing); a member without the right to
// use terminals may look and do nothing (403); nobody signed in is sent to
// sign in. Nothing a refused request asked for reached a terminal. The
// owning rep (an installer) runs a test amount; a member with the right runs
// a sale.
func TestEveryTerminalsRouteForEveryRole(t *testing.T) {
	t.Parallel()
	p := newPortal(t)
	ctx := context.Background()
	viewer, viewerPW := p.member(t, "viewer@cafe.example", merchants.PermViewOnly)
	cashier, cashierPW := p.cashier(t)
	otherRep, otherPW := p.env.CreateUser(t, "other@example.com", models.RoleSalesRep)
	// A merchant user of another merchant.
	mine := p.merchantID
	p.merchantID = p.board(t, "Zephyr Bikes")
	stranger, strangerPW := p.member(t, "staff@zephyr.example", merchants.PermUseTerminals, merchants.PermRefund)
	p.merchantID = mine

	login := func(u *models.User, pw string) *apptest.Client {
		c := p.env.Client(t)
		c.Login(u.Email, pw)
		return c
	}
	cashierC := login(cashier, cashierPW)
	// A launch to act on: the cashier's, whose answer was lost.
	if err := p.env.App.Terminals.Refresh(ctx, cashier, p.merchantID, p.locationID); err != nil {
		t.Fatal(err)
	}
	p.env.Sandbox.Root.Faults().FailNext("terminals", -1)
	l, err := p.env.App.Terminals.Launch(ctx, cashier, p.merchantID, terminals.LaunchRequest{FormToken: uuid.NewString(),
		Kind: "sale", Amount: "3.00", LocationID: p.locationID, Device: "EMULATOR"})
	if err != nil || l.State != terminals.StateUnknown {
		t.Fatalf("launch: %v %+v", err, l)
	}
	launches, sent := len(p.launches(t)), p.sandboxCount(t)

	for _, rc := range []struct {
		name   string
		c      *apptest.Client
		status func(termRoute) int
	}{
		{"another rep", login(otherRep, otherPW), func(termRoute) int { return http.StatusNotFound }},
		{"a merchant user of another merchant", login(stranger, strangerPW), func(termRoute) int { return http.StatusNotFound }},
		{"a member who may only look", login(viewer, viewerPW), func(r termRoute) int {
			if r.view {
				return http.StatusOK
			}
			return http.StatusForbidden
		}},
	} {
		for _, r := range termRoutes(p, l.ID) {
			res := r.do(rc.c)
			if want := rc.status(r); res.Status != want {
				t.Errorf("%s: %s (%s %s) = %d, want %d", rc.name, r.name, r.method, r.path, res.Status, want)
			}
			if res.Status == http.StatusNotFound && strings.Contains(res.Body, "Corner Cafe") {
				t.Errorf("%s: %s tells the merchant's name", rc.name, r.name)
			}
		}
	}
	anonymous := p.env.Client(t)
	for _, r := range termRoutes(p, l.ID) {
		res := r.do(anonymous)
		if (r.method == http.MethodGet && (res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Location, "/login"))) ||
			(r.method == http.MethodPost && res.Status != http.StatusUnauthorized) {
			t.Errorf("anonymous: %s = %d %s", r.name, res.Status, res.Location)
		}
	}
	if n, s := len(p.launches(t)), p.sandboxCount(t); n != launches || s != sent {
		t.Fatalf("refused requests launched something: %d launches (was %d), %d sent (was %d)", n, launches, s, sent)
	}
	if got := p.load(t, l.ID); got.State != terminals.StateUnknown {
		t.Fatalf("a refused confirmation changed the launch: %s", got.State)
	}

	// Those who may: the cashier launches, confirms; the owning rep runs a
	// test amount and is refused a return.
	for _, r := range termRoutes(p, l.ID) {
		if r.name == "resend" {
			continue
		}
		res := r.do(cashierC)
		if res.Status != http.StatusOK && res.Status != http.StatusSeeOther {
			t.Errorf("the cashier: %s = %d\n%s", r.name, res.Status, res.Body)
		}
	}
	if got := p.load(t, l.ID); got.State != terminals.StateCancelled || !got.ConfirmedByPerson() {
		t.Errorf("after the cashier's confirmation: %s", got.State)
	}
	repC := login(p.rep, p.repPW)
	sale := url.Values{"form_token": {uuid.NewString()}, "kind": {"sale"}, "location": {p.locationID}, "device": {"COUNTER-S300"}, "amount": {"0.50"}}
	if res := repC.PostForm(terminals.Path(p.merchantID)+"/launches", sale); res.Status != http.StatusSeeOther {
		t.Errorf("the owning rep's test amount: %d\n%s", res.Status, res.Body)
	}
	ret := url.Values{"form_token": {uuid.NewString()}, "kind": {"return"}, "location": {p.locationID}, "device": {"COUNTER-S300"}, "amount": {"0.50"}, "reason": {"test"}}
	if res := repC.PostForm(terminals.Path(p.merchantID)+"/launches", ret); res.Status != http.StatusForbidden {
		t.Errorf("the owning rep's return: %d", res.Status)
	}
}

// load reads a launch of the portal.
func (p *portal) load(t *testing.T, id uuid.UUID) *terminals.Launch {
	t.Helper()
	l, err := p.env.App.Terminals.Store().Launch(context.Background(), nil, id)
	if err != nil {
		t.Fatal(err)
	}
	return l
}
