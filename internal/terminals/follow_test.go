package terminals_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/payments"
	"github.com/payportal/portal/internal/terminals"
)

func TestBudgetRunOutMakesTheOutcomeUnknownUntilARecheckFindsIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.devices(t)
	// A cardholder who takes ten minutes.
	e.adminJSON(t, "PUT", "/settings", `{"cardholderDelay": "10m"}`, nil)
	l := e.launch(t, e.user, sale("20.00", "SLOW", ""))
	got := e.after(t, l.ID, 5*time.Minute, func(l *terminals.Launch) bool { return l.State == terminals.StateUnknown })
	if got.RecheckUntil == nil || got.Problem == "" {
		t.Fatalf("unknown without a recheck or a problem: %+v", got)
	}
	if line := e.ledgerLine(t, l.ID); line.Status != payments.StatusChecking {
		t.Errorf("ledger while unknown: %s", line.Status)
	}
	// The device stays locked.
	if _, err := e.try(e.user, sale("1.00", "", "")); err == nil {
		t.Fatal("a launch on a device whose outcome is unknown was sent")
	}
	// The slow recheck finds the result once it is there.
	got = e.finished(t, l.ID, 6*time.Minute)
	if got.State != terminals.StateApproved || terminals.Resolution(*got.Resolution) != terminals.ResolvedByRecheck {
		t.Fatalf("after the recheck: %s %v", got.State, got.Resolution)
	}
	if line := e.ledgerLine(t, l.ID); line.Status != payments.StatusApproved || line.ApprovedCents != 2000 {
		t.Errorf("ledger after the recheck: %s %d", line.Status, line.ApprovedCents)
	}
	e.launch(t, e.user, sale("1.00", "", ""))
}

func TestAPortalThatDiedMidPollIsTakenOverWithItsBudget(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.devices(t)
	first := e.svc
	l := e.launch(t, e.user, sale("15.00", "CRASH", ""))
	// The first process stops without releasing anything, as a killed one.
	stopHard(t, first)
	second := e.start(t, "second")
	if fast, _ := second.Following(); fast != 0 {
		t.Fatalf("the second process follows %d launches whose lease still runs", fast)
	}
	// Once the lease has run out, the second process takes it over and
	// records the result.
	got := e.finished(t, l.ID, 11*time.Second)
	if got.State != terminals.StateApproved {
		t.Fatalf("after the take-over: %s", got.State)
	}
	if n := len(e.sandboxTransactions(t)); n != 1 {
		t.Errorf("the terminal received %d transactions", n)
	}
}

func TestALaunchWhoseSenderDiedIsUnknown(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.devices(t)
	// A launch committed by a process that died before the answer came.
	id := uuid.New()
	until := e.clock.Now().Add(time.Second)
	_, err := e.db.Pool.Exec(context.Background(), `INSERT INTO terminal_launches (id, merchant_id, location_id, device_name,
			kind, state, amount_cents, invoice_ref, transaction_ref, cashier, test_mode, form_token, created_by, created_at,
			sent_at, follower, lease_until)
		VALUES ($1, $2, $3, 'EMULATOR', 'sale', 'sending', 500, 'X', 'X.1', 'Ann', true, $4, $5, $6, $6, 'dead', $7)`,
		id, e.merchant.ID, e.loc.ID, uuid.New(), e.user.ID, e.clock.Now(), until)
	if err != nil {
		t.Fatal(err)
	}
	got := e.after(t, id, 5*time.Second, func(l *terminals.Launch) bool { return l.State == terminals.StateUnknown })
	if got.RecheckUntil != nil {
		t.Errorf("a launch without an id is rechecked until %v", got.RecheckUntil)
	}
}

func TestAnswerLostThenConfirmedByAPerson(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.devices(t)
	e.faults.FailNext("terminals", -1) // the launch runs, its answer is lost
	l := e.launch(t, e.user, sale("8.00", "LOST", ""))
	if l.State != terminals.StateUnknown || l.CloudID() != "" {
		t.Fatalf("lost answer: %s %q", l.State, l.CloudID())
	}
	got, err := e.svc.Confirm(context.Background(), e.user, e.merchant.ID, l.ID, terminals.ConfirmRequest{Outcome: "approved", Approval: "A1B2"})
	if err != nil {
		t.Fatal(err)
	}
	if got.State != terminals.StateApproved || got.ApprovalNumber != "A1B2" || !got.ConfirmedByPerson() {
		t.Fatalf("confirmed: %+v", got)
	}
	line := e.ledgerLine(t, l.ID)
	if line.Status != payments.StatusApproved || line.ApprovedCents != 800 {
		t.Errorf("ledger: %s %d", line.Status, line.ApprovedCents)
	}
	var audited int
	_ = e.db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM audit_events WHERE action = 'terminal_confirmed' AND actor_id = $1`, e.user.ID).Scan(&audited)
	if audited != 2 {
		t.Errorf("%d audit entries of the confirmation, want the merchant's and the transaction's", audited)
	}
	// The payment counts: the next payment on the invoice is .2.
	if next := e.launch(t, e.user, sale("1.00", "LOST", "TABLE-D210")); next.TransactionRef != "LOST.2" {
		t.Errorf("next reference %q", next.TransactionRef)
	}
}

func TestResendOfAnApprovedLaunchAnswersWithTheDuplicate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.devices(t)
	e.faults.FailNext("terminals", -1)
	l := e.launch(t, e.user, sale("11.00", "DUP", ""))
	if l.State != terminals.StateUnknown {
		t.Fatalf("lost answer: %s", l.State)
	}
	// The device finishes the first one (approved) while the user looks.
	e.advance(4 * time.Second)
	if _, err := e.svc.Resend(context.Background(), e.user, e.merchant.ID, l.ID, terminals.ResendRequest{FormToken: uuid.NewString()}); err == nil {
		t.Fatal("a resend without the user's acknowledgement was sent")
	}
	r, err := e.svc.Resend(context.Background(), e.user, e.merchant.ID, l.ID, terminals.ResendRequest{FormToken: uuid.NewString(), Understood: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.TransactionRef != "DUP.1" || r.ResendOf == nil || *r.ResendOf != l.ID {
		t.Fatalf("resend: ref %q of %v", r.TransactionRef, r.ResendOf)
	}
	got := e.finished(t, r.ID, 4*time.Second)
	if got.State != terminals.StateApproved || !got.Duplicate {
		t.Fatalf("resend's result: %s duplicate %v", got.State, got.Duplicate)
	}
	if old := e.load(t, l.ID); old.State != terminals.StateResent {
		t.Errorf("first launch: %s", old.State)
	}
	// One ledger line, charged once.
	line := e.ledgerLine(t, l.ID)
	if line.Status != payments.StatusApproved || line.ApprovedCents != 1100 {
		t.Errorf("ledger: %s %d", line.Status, line.ApprovedCents)
	}
	if r.LedgerID == nil || *r.LedgerID != l.ID {
		t.Errorf("the resend answers another ledger line: %v", r.LedgerID)
	}
	charged := 0
	for _, tx := range e.sandboxTransactions(t) {
		if tx.Approved && !tx.FromLogFile {
			charged++
		}
	}
	if charged != 1 {
		t.Errorf("the card was charged %d times", charged)
	}
}

// stopHard ends a process's following without releasing its leases, as a
// SIGKILL would.
func stopHard(t *testing.T, s *terminals.Service) {
	t.Helper()
	terminals.Kill(s)
}
