package terminals_test

import (
	"context"
	"testing"
	"time"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/httpx"
	"github.com/payportal/portal/internal/payments"
	"github.com/payportal/portal/internal/terminals"
)

func TestTipsNameTheOriginalSaleOnItsOwnDevice(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.devices(t)
	s := e.finished(t, e.launch(t, e.user, sale("50.00", "TAB-9", "TABLE-D210")).ID, 4*time.Second)
	tip := func(total string, confirm bool, original string) (*terminals.Launch, error) {
		return e.try(e.user, terminals.LaunchRequest{Kind: "tip", Amount: total, Original: original, Device: "EMULATOR", ConfirmTip: httpx.Checkbox(confirm)})
	}
	// Above 20% asks for a confirmation; below the sale is refused.
	if _, err := tip("61.00", false, s.ID.String()); fieldOf(err) != "confirm_tip" {
		t.Fatalf("a 22%% tip without confirmation: %v", err)
	}
	if _, err := tip("40.00", false, s.ID.String()); fieldOf(err) != "amount" {
		t.Fatalf("a total below the sale: %v", err)
	}
	first, err := tip("58.00", false, s.ID.String())
	if err != nil {
		t.Fatal(err)
	}
	if first.DeviceName != "TABLE-D210" || first.TransactionRef != "TAB-9.1" || first.TipCents() != 800 {
		t.Fatalf("tip launched on %s with %q, tip %d", first.DeviceName, first.TransactionRef, first.TipCents())
	}
	first = e.finished(t, first.ID, 2*time.Second)
	if first.State != terminals.StateApproved {
		t.Fatalf("tip: %s %q", first.State, first.ResultMessage)
	}
	// A tip is never added to a tip.
	if _, err := tip("60.00", false, first.ID.String()); fieldOf(err) != "original" {
		t.Fatalf("a tip on a tip: %v", err)
	}
	second, err := tip("65.00", true, s.ID.String())
	if err != nil {
		t.Fatal(err)
	}
	second = e.finished(t, second.ID, 2*time.Second)
	line := e.ledgerLine(t, s.ID)
	if line.TipCents != 1500 || line.ApprovedCents != 6500 {
		t.Errorf("sale in the ledger after two tips: tip %d, approved %d", line.TipCents, line.ApprovedCents)
	}
	if second.State != terminals.StateApproved || second.Amount() != 6500 {
		t.Errorf("second tip: %s", second.State)
	}
}

func TestVoidOfASale(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.devices(t)
	s := e.finished(t, e.launch(t, e.user, sale("30.00", "V-1", "COUNTER-S300")).ID, 4*time.Second)
	v := e.launch(t, e.user, terminals.LaunchRequest{Kind: "void", Original: s.ID.String(), Device: "EMULATOR"})
	if v.DeviceName != "EMULATOR" || v.TransactionRef != "V-1.1" {
		t.Errorf("void on %s with %q", v.DeviceName, v.TransactionRef)
	}
	v = e.finished(t, v.ID, 2*time.Second)
	if v.State != terminals.StateApproved || v.ProcessedText() != "$30.00" {
		t.Fatalf("void: %s %s", v.State, v.ProcessedText())
	}
	if line := e.ledgerLine(t, s.ID); line.Status != payments.StatusVoided {
		t.Errorf("sale in the ledger: %s", line.Status)
	}
	if _, err := e.try(e.user, terminals.LaunchRequest{Kind: "void", Original: s.ID.String()}); fieldOf(err) != "original" {
		t.Errorf("a second void: %v", err)
	}
}

func TestReturnsNeedTheRightAReasonAndStayWithinTheSale(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.devices(t)
	s := e.finished(t, e.launch(t, e.user, sale("25.00", "R-1", "")).ID, 4*time.Second)
	ret := terminals.LaunchRequest{Kind: "return", Amount: "10.00", Linked: s.ID.String(), Reason: "Wrong size"}
	clerk := e.addUser(t, "clerk@example.com", "Clerk")
	e.merchants.grant(clerk, terminals.Access{UseTerminals: true})
	if _, err := e.try(clerk, ret); apperr.KindOf(err) != apperr.KindForbidden {
		t.Fatalf("a return without the refund right: %v", err)
	}
	noReason := ret
	noReason.Reason = ""
	if _, err := e.try(e.user, noReason); fieldOf(err) != "reason" {
		t.Fatalf("a return without a reason: %v", err)
	}
	r := e.finished(t, e.launch(t, e.user, ret).ID, 4*time.Second)
	if r.State != terminals.StateApproved {
		t.Fatalf("return: %s", r.State)
	}
	line := e.ledgerLine(t, r.ID)
	if line.Kind != payments.KindRefund || line.ParentID == nil || *line.ParentID != s.ID {
		t.Errorf("return in the ledger: %s parent %v", line.Kind, line.ParentID)
	}
	over := ret
	over.Amount = "15.01"
	if _, err := e.try(e.user, over); fieldOf(err) != "amount" {
		t.Fatalf("a return above what is left: %v", err)
	}
	// An unlinked return is not capped by anything but the amount.
	unlinked := ret
	unlinked.Linked, unlinked.Amount = "", "99.00"
	e.launch(t, e.user, unlinked)
	var audited int
	_ = e.db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM audit_events WHERE action = 'terminal_launched' AND details->>'kind' = 'return' AND details->>'reason' = 'Wrong size'`).Scan(&audited)
	if audited != 4 {
		t.Errorf("%d audit entries of the two returns", audited)
	}
}

func TestInstallersRunSaveCardAndTestAmountsOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.devices(t)
	rep := e.addUser(t, "rep@example.com", "Rita Rep")
	e.merchants.grant(rep, terminals.Access{Staff: true})
	if _, err := e.try(rep, terminals.LaunchRequest{Kind: "save_card"}); fieldOf(err) != "consent" {
		t.Fatalf("save card without the cardholder's consent: %v", err)
	}
	saved := e.finished(t, e.launch(t, rep, terminals.LaunchRequest{Kind: "save_card", Consent: true}).ID, 4*time.Second)
	if saved.State != terminals.StateApproved {
		t.Fatalf("save card: %s", saved.State)
	}
	if line := e.ledgerLine(t, saved.ID); line.Kind != payments.KindSaveMethod || line.Status != payments.StatusApproved {
		t.Errorf("save card in the ledger: %s %s", line.Kind, line.Status)
	}
	declined := e.finished(t, e.launch(t, rep, sale("0.51", "", "")).ID, 4*time.Second)
	if declined.State != terminals.StateDeclined {
		t.Errorf("test amount 0.51: %s", declined.State)
	}
	for _, req := range []terminals.LaunchRequest{
		sale("1.01", "", ""),
		{Kind: "return", Amount: "0.50", Reason: "test"},
		{Kind: "token_sale", Amount: "0.50", Original: saved.ID.String()},
	} {
		if _, err := e.try(rep, req); apperr.KindOf(err) != apperr.KindForbidden {
			t.Errorf("installer's %s of %s: %v", req.Kind, req.Amount, err)
		}
	}
	// The merchant's own staff charge the saved card.
	ts := e.finished(t, e.launch(t, e.user, terminals.LaunchRequest{Kind: "token_sale", Amount: "19.00", Original: saved.ID.String(), Invoice: "SUB-1"}).ID, 2*time.Second)
	if ts.State != terminals.StateApproved || ts.EntryMethod != "Token" {
		t.Errorf("token sale: %s %s", ts.State, ts.EntryMethod)
	}
}

func TestSuspendedMerchantsLaunchNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.devices(t)
	e.merchants.mu.Lock()
	e.merchant.Suspended = true
	e.merchants.mu.Unlock()
	if _, err := e.try(e.user, sale("1.00", "", "")); apperr.KindOf(err) != apperr.KindConflict {
		t.Fatalf("a suspended merchant's launch: %v", err)
	}
	if n := len(e.sandboxTransactions(t)); n != 0 {
		t.Errorf("the terminal received %d transactions", n)
	}
}

// fieldOf returns the one field of a validation error, or "".
func fieldOf(err error) string {
	fields, ok := apperr.FieldsOf(err)
	if !ok {
		return ""
	}
	for f := range fields {
		return f
	}
	return ""
}
