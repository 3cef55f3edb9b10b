package terminals_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/terminals"
)

// A launch's page offers the next steps only when the launch's state and the viewer's
// rights allow them: a tip and a void on an approved sale not voided yet, a void on an
// approved return, a sale with a saved card, confirming or resending a launch whose
// outcome is unknown; an installer sees only what installers may run. One row per
// launch and viewer.
func TestLaunchPageOffersWhatStateAndRightsAllow(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.devices(t)
	ctx := context.Background()
	installer := e.addUser(t, "rep@example.com", "Rita Rep")
	e.merchants.grant(installer, terminals.Access{Staff: true})
	cashier := e.addUser(t, "cal@example.com", "Cal Cashier")
	e.merchants.grant(cashier, terminals.Access{UseTerminals: true})
	tipper := e.addUser(t, "tia@example.com", "Tia Tipper")
	e.merchants.grant(tipper, terminals.Access{UseTerminals: true, Adjust: true})
	looker := e.addUser(t, "lou@example.com", "Lou Looker")
	e.merchants.grant(looker, terminals.Access{})

	approved := e.finished(t, e.launch(t, e.user, sale("12.00", "P-1", "COUNTER-S300")).ID, 4*time.Second)
	voided := e.finished(t, e.launch(t, e.user, sale("13.00", "P-2", "COUNTER-S300")).ID, 4*time.Second)
	e.finished(t, e.launch(t, e.user, terminals.LaunchRequest{Kind: "void", Original: voided.ID.String(), Device: "EMULATOR"}).ID, 4*time.Second)
	declined := e.finished(t, e.launch(t, e.user, sale("3.51", "P-3", "COUNTER-S300")).ID, 4*time.Second)
	saved := e.finished(t, e.launch(t, e.user, terminals.LaunchRequest{Kind: "save_card", Consent: true}).ID, 4*time.Second)
	e.faults.FailNext("terminals", -1)
	unknown := e.launch(t, e.user, sale("3.00", "P-4", "TABLE-D210"))
	if approved.State != terminals.StateApproved || declined.State != terminals.StateDeclined || saved.State != terminals.StateApproved {
		t.Fatalf("setup: %s %s %s", approved.State, declined.State, saved.State)
	}

	type offer struct{ tip, void, saleWithCard, confirm, resend bool }
	for _, tt := range []struct {
		name   string
		viewer *models.User
		launch *terminals.Launch
		want   offer
	}{
		{"every right, an approved sale", e.user, approved, offer{tip: true, void: true}},
		{"every right, a voided sale", e.user, voided, offer{}},
		{"every right, a declined sale", e.user, declined, offer{}},
		{"every right, a saved card", e.user, saved, offer{saleWithCard: true}},
		{"every right, an unknown outcome", e.user, unknown, offer{confirm: true, resend: true}},
		{"terminals only, an approved sale", cashier, approved, offer{}},
		{"terminals only, a saved card", cashier, saved, offer{saleWithCard: true}},
		{"terminals only, an unknown outcome", cashier, unknown, offer{confirm: true, resend: true}},
		{"tip right, an approved sale", tipper, approved, offer{tip: true}},
		{"installer, an approved sale", installer, approved, offer{}},
		{"installer, a saved card", installer, saved, offer{}},
		{"installer, an unknown sale of 3.00", installer, unknown, offer{confirm: true}},
		{"no right, an unknown outcome", looker, unknown, offer{}},
	} {
		v, err := e.svc.Page(ctx, tt.viewer, e.merchant.ID, tt.launch.ID)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := (offer{v.CanTip, v.CanVoid, v.CanSaleWithCard, v.CanConfirm, v.CanResend}); got != tt.want {
			t.Errorf("%s: offered %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// The launch form: 404 for a kind, location or device that is not the merchant's, the
// refusal of mayLaunch for a kind the viewer may not run there; a tip or a void names
// its sale's device (a void may be moved to another), a token sale lists the saved
// cards and a return the sales it may be linked to.
func TestLaunchFormRows(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.devices(t)
	ctx := context.Background()
	installer := e.addUser(t, "rep@example.com", "Rita Rep")
	e.merchants.grant(installer, terminals.Access{Staff: true})
	approved := e.finished(t, e.launch(t, e.user, sale("12.00", "P-1", "COUNTER-S300")).ID, 4*time.Second)
	e.finished(t, e.launch(t, e.user, terminals.LaunchRequest{Kind: "save_card", Consent: true}).ID, 4*time.Second)
	here := func(kind string) terminals.LaunchRequest {
		return terminals.LaunchRequest{Kind: kind, LocationID: e.loc.ID, Device: "EMULATOR"}
	}
	for _, tt := range []struct {
		name   string
		viewer *models.User
		req    terminals.LaunchRequest
		want   string // "404", "forbidden", or what the form holds
	}{
		{"unknown kind", e.user, terminals.LaunchRequest{Kind: "refund", LocationID: e.loc.ID, Device: "EMULATOR"}, "404"},
		{"unknown location", e.user, terminals.LaunchRequest{Kind: "sale", LocationID: "NOPE", Device: "EMULATOR"}, "404"},
		{"unknown device", e.user, terminals.LaunchRequest{Kind: "sale", LocationID: e.loc.ID, Device: "NOPE"}, "404"},
		{"installer's return", installer, here("return"), "forbidden"},
		{"installer's sale", installer, here("sale"), "device EMULATOR"},
		{"sale", e.user, here("sale"), "device EMULATOR"},
		{"tip on the sale's device", e.user, terminals.LaunchRequest{Kind: "tip", Original: approved.ID.String(), Device: "EMULATOR"}, "device COUNTER-S300, total 1200"},
		{"void on the sale's device", e.user, terminals.LaunchRequest{Kind: "void", Original: approved.ID.String()}, "device COUNTER-S300, total 1200"},
		{"void moved to another device", e.user, terminals.LaunchRequest{Kind: "void", Original: approved.ID.String(), LocationID: e.loc.ID, Device: "EMULATOR"}, "device EMULATOR, total 1200"},
		{"token sale", e.user, here("token_sale"), "device EMULATOR, 1 saved cards"},
		{"return", e.user, here("return"), "device EMULATOR, 1 sales"},
	} {
		v, err := e.svc.Form(ctx, tt.viewer, e.merchant.ID, tt.req)
		got := ""
		switch {
		case notFoundErr(err):
			got = "404"
		case err != nil && fieldOf(err) == "" && isForbidden(err):
			got = "forbidden"
		case err != nil:
			got = err.Error()
		default:
			got = "device " + v.Device.DeviceName
			if v.Original != nil {
				got += ", total " + itoa(v.CurrentTotal)
			}
			if len(v.SavedCards) > 0 {
				got += ", " + itoa(int64(len(v.SavedCards))) + " saved cards"
			}
			if len(v.Sales) > 0 {
				got += ", " + itoa(int64(len(v.Sales))) + " sales"
			}
			if v.Request.FormToken == "" || v.Request.Cashier == "" {
				got += ", without a form token or cashier"
			}
		}
		if got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
}

func notFoundErr(err error) bool {
	return errors.Is(err, models.ErrNotFound) || apperr.KindOf(err) == apperr.KindNotFound
}

func isForbidden(err error) bool { return apperr.KindOf(err) == apperr.KindForbidden }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
