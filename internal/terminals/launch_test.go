package terminals_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/payments"
	"github.com/payportal/portal/internal/terminals"
)

func TestSaleIsFollowedToItsResultAndRecordedInTheLedger(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.devices(t)
	l := e.launch(t, e.user, sale("12.50", "INV-42", "COUNTER-S300"))
	if l.State != terminals.StateWaiting || l.CloudID() == "" {
		t.Fatalf("after the launch: %s, id %q", l.State, l.CloudID())
	}
	if l.TransactionRef != "INV-42.1" {
		t.Errorf("reference %q, want INV-42.1", l.TransactionRef)
	}
	if line := e.ledgerLine(t, l.ID); line.Status != payments.StatusPending || line.Source != payments.SourceTerminal {
		t.Errorf("ledger line while waiting: %s %s", line.Source, line.Status)
	}
	got := e.finished(t, l.ID, 10*time.Second)
	if got.State != terminals.StateApproved || got.ApprovalNumber == "" || got.Last4() != "4223" || got.Duplicate {
		t.Fatalf("result: %+v", got)
	}
	if got.Polls < 1 || got.Polls > 4 {
		t.Errorf("%d reads for a 3-second cardholder", got.Polls)
	}
	line := e.ledgerLine(t, l.ID)
	if line.Status != payments.StatusApproved || line.ApprovedCents != 1250 || line.Card.Last4 != "4223" ||
		line.DeviceName != "COUNTER-S300" || line.Reference != "INV-42.1" || line.UniqueTransID != got.CloudID() {
		t.Errorf("ledger line: %+v", line)
	}
	// The payment number grows with the approval: the next payment on the
	// invoice is .2.
	next := e.launch(t, e.user, sale("7.00", "INV-42", "COUNTER-S300"))
	if next.TransactionRef != "INV-42.2" {
		t.Errorf("second payment's reference %q, want INV-42.2", next.TransactionRef)
	}
}

func TestDeclinedPaymentKeepsTheInvoicesPaymentNumber(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.devices(t)
	l := e.launch(t, e.user, sale("10.51", "INV-7", ""))
	got := e.finished(t, l.ID, 10*time.Second)
	if got.State != terminals.StateDeclined || got.ResultMessage != "DECLINED" {
		t.Fatalf("result: %s %q", got.State, got.ResultMessage)
	}
	if line := e.ledgerLine(t, l.ID); line.Status != payments.StatusDeclined || line.ApprovedCents != 0 {
		t.Errorf("ledger: %+v", line)
	}
	again := e.launch(t, e.user, sale("10.00", "INV-7", ""))
	if again.TransactionRef != "INV-7.1" {
		t.Errorf("after a decline the reference is %q, want INV-7.1 again", again.TransactionRef)
	}
}

func TestCancelledAndTimedOutAtTheTerminal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.devices(t)
	cancelled := e.finished(t, e.launch(t, e.user, sale("3.52", "", "")).ID, 10*time.Second)
	if cancelled.State != terminals.StateCancelled {
		t.Errorf("cancelled: %s", cancelled.State)
	}
	timedOut := e.finished(t, e.launch(t, e.user, sale("3.53", "", "")).ID, 61*time.Second)
	if timedOut.State != terminals.StateTimedOut {
		t.Errorf("timed out: %s", timedOut.State)
	}
	if line := e.ledgerLine(t, timedOut.ID); line.Status != payments.StatusCancelled {
		t.Errorf("ledger: %s", line.Status)
	}
}

func TestOneTransactionAtATimePerDevice(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.devices(t)
	// Two tabs, twenty of them: each its own form, all at once.
	var wg sync.WaitGroup
	var mu sync.Mutex
	var launched []*terminals.Launch
	busy := 0
	for range 20 {
		wg.Go(func() {
			l, err := e.try(e.user, sale("5.00", "TABS", "TABLE-D210"))
			mu.Lock()
			defer mu.Unlock()
			var be *terminals.BusyError
			switch {
			case err == nil:
				launched = append(launched, l)
			case errors.As(err, &be):
				busy++
				if apperr.KindOf(err) != apperr.KindConflict {
					t.Errorf("busy is not a conflict: %v", err)
				}
			default:
				t.Errorf("launch: %v", err)
			}
		})
	}
	wg.Wait()
	if len(launched) != 1 || busy != 19 {
		t.Fatalf("%d launched, %d refused as busy", len(launched), busy)
	}
	if n := len(e.sandboxTransactions(t)); n != 1 {
		t.Errorf("the terminal received %d transactions", n)
	}
	// Another device is free.
	e.launch(t, e.user, sale("5.00", "OTHER", "EMULATOR"))
	// Once the first has finished, its device takes a new one.
	e.finished(t, launched[0].ID, 10*time.Second)
	e.launch(t, e.user, sale("6.00", "TABS", "TABLE-D210"))
}

func TestTheSameFormPostedTwiceIsOneLaunch(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.devices(t)
	req := sale("9.99", "DBL", "")
	req.FormToken = uuid.NewString()
	var wg sync.WaitGroup
	ids := make([]uuid.UUID, 5)
	for i := range ids {
		wg.Go(func() {
			l, err := e.try(e.user, req)
			if err != nil {
				t.Errorf("click %d: %v", i, err)
				return
			}
			ids[i] = l.ID
		})
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] {
			t.Fatalf("a double click made several launches: %v", ids)
		}
	}
	if n := len(e.sandboxTransactions(t)); n != 1 {
		t.Errorf("the terminal received %d transactions", n)
	}
}

func TestRefusedLaunchesFreeTheDevice(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.devices(t)
	e.adminJSON(t, "PATCH", "/locations/"+e.loc.ID+"/devices/EMULATOR", `{"online": false}`, nil)
	l := e.launch(t, e.user, sale("4.00", "", ""))
	if l.State != terminals.StateNotSent || l.Problem == "" {
		t.Fatalf("offline device: %s %q", l.State, l.Problem)
	}
	if line := e.ledgerLine(t, l.ID); line.Status != payments.StatusFailed {
		t.Errorf("ledger: %s", line.Status)
	}
	e.adminJSON(t, "PATCH", "/locations/"+e.loc.ID+"/devices/EMULATOR", `{"online": true}`, nil)
	again := e.launch(t, e.user, sale("4.00", "", ""))
	if again.State != terminals.StateWaiting {
		t.Fatalf("back online: %s", again.State)
	}
	d, err := e.svc.Store().Device(context.Background(), nil, e.merchant.ID, e.loc.ID, "EMULATOR")
	if err != nil {
		t.Fatal(err)
	}
	if d.ErrorStreak != 0 || d.LastOKAt == nil {
		t.Errorf("health after an answer: streak %d, last ok %v", d.ErrorStreak, d.LastOKAt)
	}
}
