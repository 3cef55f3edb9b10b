package payments_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/httpx"
	"github.com/payportal/portal/internal/payments"
	"github.com/payportal/portal/internal/testutil"
)

func TestCardSaleIsRecordedOnceAndTwiceSentFormIsTheSameTransaction(t *testing.T) {
	t.Parallel()
	e := newSvcEnv(t, svcOptions{})
	ctx := context.Background()
	f := e.cardForm("4111 1111 1111 1111", "$1,234.50")
	res, err := e.svc.PayCard(ctx, e.user, e.merchant.ID, f)
	if err != nil {
		t.Fatal(err)
	}
	tx := res.Transaction
	if tx.Status != payments.StatusApproved || tx.ApprovedCents != 123450 || tx.Card.Masked() != "411111******1111" ||
		tx.UniqueTransID == "" || tx.BatchNumber == "" || tx.ApprovalCode == "" {
		t.Fatalf("sale: %+v", tx)
	}
	// The same form again (a double click, a retry): the same transaction.
	again, err := e.svc.PayCard(ctx, e.user, e.merchant.ID, f)
	if err != nil || !again.Repeated || again.Transaction.ID != tx.ID {
		t.Fatalf("second submit: %v %+v", err, again)
	}
	if n := len(e.upstreamTransactions()); n != 1 {
		t.Fatalf("%d upstream transactions, want 1", n)
	}
	// A new form with the same card and amount: the duplicate warning, then
	// an explicit "charge again".
	f2 := e.cardForm("4111111111111111", "1234.50")
	_, err = e.svc.PayCard(ctx, e.user, e.merchant.ID, f2)
	var dup *payments.DuplicateError
	if !errors.As(err, &dup) || dup.Earlier.ID != tx.ID {
		t.Fatalf("duplicate: %v", err)
	}
	f2 = e.cardForm("4111111111111111", "1234.50")
	f2.ConfirmDuplicate = true
	if res, err := e.svc.PayCard(ctx, e.user, e.merchant.ID, f2); err != nil || res.Transaction.Status != payments.StatusApproved {
		t.Fatalf("charge again: %v", err)
	}
	if n := len(e.upstreamTransactions()); n != 2 {
		t.Fatalf("%d upstream transactions, want 2", n)
	}
}

func TestCardFormProblemsAreFieldErrors(t *testing.T) {
	t.Parallel()
	e := newSvcEnv(t, svcOptions{})
	f := e.cardForm("4111 1111 1111 1112", "12.345")
	f.Expiry = "13/30"
	_, err := e.svc.PayCard(context.Background(), e.user, e.merchant.ID, f)
	fields, ok := apperr.FieldsOf(err)
	if !ok || fields["card_number"] == "" || fields["amount"] == "" || fields["expiry"] == "" {
		t.Fatalf("fields: %v %v", err, fields)
	}
	if len(e.upstreamTransactions()) != 0 {
		t.Fatal("a refused form reached the processor")
	}
}

// TestActThenDropIsReadBack: the processor acts and the answer is lost; the
// client reads it back and the ledger has the one approval.
func TestActThenDropIsReadBack(t *testing.T) {
	t.Parallel()
	e := newSvcEnv(t, svcOptions{})
	e.sb.Root.Faults().FailNext("payments", -1)
	res, err := e.svc.PayCard(context.Background(), e.user, e.merchant.ID, e.cardForm("5555555555554444", "20.00"))
	if err != nil || res.Transaction.Status != payments.StatusApproved {
		t.Fatalf("%v %+v", err, res)
	}
	if n := len(e.upstreamTransactions()); n != 1 {
		t.Fatalf("%d upstream transactions", n)
	}
}

// TestUnknownOutcomeIsCheckedNeverChargedTwice: the sale's answer is lost and
// the read-backs fail too, so the outcome is unknown ("checking"); the
// background check reads it back and records the approval.
func TestUnknownOutcomeIsCheckedNeverChargedTwice(t *testing.T) {
	t.Parallel()
	e := newSvcEnv(t, svcOptions{checkEvery: 100 * time.Millisecond})
	e.sb.Root.Faults().FailNext("payments", -1, 503, 503, 503, 503)
	res, err := e.svc.PayCard(context.Background(), e.user, e.merchant.ID, e.cardForm("4242424242424242", "31.00"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Transaction.Status != payments.StatusChecking {
		t.Fatalf("status %s, want checking", res.Transaction.Status)
	}
	testutil.Eventually(t, 10*time.Second, "the check to find the approval", func() (bool, string) {
		got, err := e.svc.Ledger().Get(context.Background(), nil, e.merchant.ID, res.Transaction.ID)
		return err == nil && got.Status == payments.StatusApproved, fmt.Sprint(got.Status)
	})
	if n := len(e.upstreamTransactions()); n != 1 {
		t.Fatalf("%d upstream transactions", n)
	}
}

// TestNotFoundBecomesNotChargedOnlyAfterTheGrace: a sale dropped before the
// processor acted is checking until read-backs after the grace period still
// find nothing.
func TestNotFoundBecomesNotChargedOnlyAfterTheGrace(t *testing.T) {
	t.Parallel()
	e := newSvcEnv(t, svcOptions{checkEvery: 50 * time.Millisecond, callTimeout: time.Second})
	// Dropped before acting, then every read-back fails: unknown.
	e.sb.Root.Faults().FailNext("payments", 0, 503, 503, 503, 503)
	res, err := e.svc.PayCard(context.Background(), e.user, e.merchant.ID, e.cardForm("4242424242424242", "32.00"))
	if err != nil || res.Transaction.Status != payments.StatusChecking {
		t.Fatalf("%v %+v", err, res)
	}
	// Checks run and find nothing; the grace has not passed.
	time.Sleep(300 * time.Millisecond) // let several checks find nothing; the outcome must stay unknown
	got, _ := e.svc.Ledger().Get(context.Background(), nil, e.merchant.ID, res.Transaction.ID)
	if got.Status != payments.StatusChecking {
		t.Fatalf("before the grace: %s", got.Status)
	}
	e.now.Advance(11 * time.Minute)
	testutil.Eventually(t, 10*time.Second, "not charged", func() (bool, string) {
		got, _ := e.svc.Ledger().Get(context.Background(), nil, e.merchant.ID, res.Transaction.ID)
		return got.Status == payments.StatusNotCharged, string(got.Status)
	})
	if n := len(e.upstreamTransactions()); n != 0 {
		t.Fatalf("%d upstream transactions", n)
	}
}

func TestReverseVoidsWithinTheWindowThenRefundsAfterSettlement(t *testing.T) {
	t.Parallel()
	e := newSvcEnv(t, svcOptions{})
	ctx := context.Background()
	sale := e.pay("4111111111111111", "40.00")
	plan, err := e.svc.PlanReverse(ctx, e.user, e.merchant.ID, sale.ID)
	if err != nil || !plan.Void || plan.VoidBecomesRefund || plan.LeftCents != 4000 {
		t.Fatalf("plan: %v %+v", err, plan)
	}
	res := e.reverse(sale.ID, "40.00", false)
	if res.Kind != payments.KindVoid || res.Status != payments.StatusApproved {
		t.Fatalf("void: %+v", res)
	}
	if got, _ := e.svc.Ledger().Get(ctx, nil, e.merchant.ID, sale.ID); got.Status != payments.StatusVoided {
		t.Fatalf("sale after void: %s", got.Status)
	}

	// A settled sale: the void is refused as settled, and the next plan
	// offers the refund.
	sale2 := e.pay("5555555555554444", "50.00")
	e.settle()
	failed := e.reverse(sale2.ID, "50.00", false)
	if failed.Status != payments.StatusFailed {
		t.Fatalf("void of a settled sale: %+v", failed)
	}
	plan, _ = e.svc.PlanReverse(ctx, e.user, e.merchant.ID, sale2.ID)
	if !plan.Settled || plan.Void || !plan.Refund {
		t.Fatalf("plan after settlement: %+v", plan)
	}
	// A partial refund needs the go-ahead after the review warning.
	token, _ := e.svc.MintToken(e.merchant, e.user, payments.PurposeReverse(sale2.ID))
	_, err = e.svc.Reverse(ctx, e.user, e.merchant.ID, sale2.ID, &payments.ReverseForm{FormToken: token, Amount: "20.00"})
	var review *payments.ReviewWarning
	if !errors.As(err, &review) {
		t.Fatalf("partial refund without the go-ahead: %v", err)
	}
	refund := e.reverse(sale2.ID, "20.00", true)
	if refund.Kind != payments.KindRefund || refund.Status != payments.StatusApproved || !refund.HeldForReview {
		t.Fatalf("refund: %+v", refund)
	}
	rest := e.reverse(sale2.ID, "30.00", true)
	if rest.Status != payments.StatusApproved {
		t.Fatalf("rest: %+v", rest)
	}
	if got, _ := e.svc.Ledger().Get(ctx, nil, e.merchant.ID, sale2.ID); got.RefundedCents != 5000 || got.StatusLabel() != "Refunded" {
		t.Fatalf("sale after refunds: %+v", got)
	}
}

func TestVoidAfterTwentyFiveMinutesIsRecordedAsTheRefundItBecame(t *testing.T) {
	t.Parallel()
	e := newSvcEnv(t, svcOptions{})
	sale := e.pay("4111111111111111", "60.00")
	e.sbClock.Advance(26 * time.Minute)
	e.now.Advance(26 * time.Minute)
	res := e.reverse(sale.ID, "60.00", false)
	if res.Kind != payments.KindRefund || res.UpstreamType != "CreditReturn" || res.Status != payments.StatusApproved {
		t.Fatalf("void after 26 minutes: %+v", res)
	}
	got, _ := e.svc.Ledger().Get(context.Background(), nil, e.merchant.ID, sale.ID)
	if got.Status != payments.StatusApproved || got.RefundedCents != 6000 {
		t.Fatalf("sale: %+v", got)
	}
}

// TestConcurrentReversesNeverExceedTheOriginal: ten refunds of $15 of a
// settled $100 sale at once; six go through.
func TestConcurrentReversesNeverExceedTheOriginal(t *testing.T) {
	t.Parallel()
	e := newSvcEnv(t, svcOptions{})
	sale := e.pay("4111111111111111", "100.00")
	e.settle()
	e.reverse(sale.ID, "1.00", true) // learns the settlement (the void is refused), refunds $1
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, refused := 0, 0
	for range 10 {
		wg.Go(func() {
			token, _ := e.svc.MintToken(e.merchant, e.user, payments.PurposeReverse(sale.ID))
			res, err := e.svc.Reverse(context.Background(), e.user, e.merchant.ID, sale.ID,
				&payments.ReverseForm{FormToken: token, Amount: "15.00", Acknowledge: true})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil && res.Transaction.Status == payments.StatusApproved:
				ok++
			case err != nil:
				refused++
			}
		})
	}
	wg.Wait()
	got, _ := e.svc.Ledger().Get(context.Background(), nil, e.merchant.ID, sale.ID)
	if got.RefundedCents > 10000 || ok != 6 || refused != 4 {
		t.Fatalf("refunded %d of 10000; %d approved, %d refused", got.RefundedCents, ok, refused)
	}
}

// pay makes an approved card sale.
func (e *svcEnv) pay(number, amount string) *payments.Transaction {
	e.t.Helper()
	f := e.cardForm(number, amount)
	f.ConfirmDuplicate = true
	res, err := e.svc.PayCard(context.Background(), e.user, e.merchant.ID, f)
	if err != nil || res.Transaction.Status != payments.StatusApproved {
		e.t.Fatalf("pay: %v %+v", err, res)
	}
	return res.Transaction
}

// reverse reverses amount of a transaction, acknowledging a review warning.
func (e *svcEnv) reverse(id uuid.UUID, amount string, ack bool) *payments.Transaction {
	e.t.Helper()
	token, _ := e.svc.MintToken(e.merchant, e.user, payments.PurposeReverse(id))
	res, err := e.svc.Reverse(context.Background(), e.user, e.merchant.ID, id,
		&payments.ReverseForm{FormToken: token, Amount: amount, Acknowledge: httpx.Checkbox(ack)})
	if err != nil {
		e.t.Fatalf("reverse %s: %v", amount, err)
	}
	return res.Transaction
}
