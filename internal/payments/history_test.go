package payments_test

import (
	"context"
	"strings"
	"testing"

	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/payments"
)

// TestMerchantHistorySaysWhatBecameOfEachRequest: the merchant's history
// words each request by its outcome: a void the processor refused as
// settled is told as tried and refused, a tip as the tip and the new total,
// an ACH sale with its article.
func TestMerchantHistorySaysWhatBecameOfEachRequest(t *testing.T) {
	t.Parallel()
	e := newSvcEnv(t, svcOptions{})
	ctx := context.Background()

	tipped := e.pay("4111111111111111", "40.00")
	token, _ := e.svc.MintToken(e.merchant, e.user, payments.PurposeTip(tipped.ID))
	tip, err := e.svc.AdjustTip(ctx, e.user, e.merchant.ID, tipped.ID, &payments.TipForm{FormToken: token, Tip: "6.00"})
	if err != nil || tip.Transaction.Status != payments.StatusApproved {
		t.Fatalf("tip: %v %+v", err, tip)
	}
	settled := e.pay("5555555555554444", "1234.50")
	e.settle()
	if v := e.reverse(settled.ID, "1234.50", false); v.Status != payments.StatusFailed {
		t.Fatalf("void of a settled sale: %+v", v)
	}
	token, _ = e.svc.MintToken(e.merchant, e.user, payments.PurposeACH)
	ach := &payments.ACHPaymentForm{FormToken: token, Amount: "80.00", HolderName: "Pat Doe", RoutingNumber: "011401533",
		AccountType: "Checking", AuthorizedHow: "written", Authorized: true}
	_ = ach.AccountNumber.UnmarshalParam("123456789")
	if res, err := e.svc.PayACH(ctx, e.user, e.merchant.ID, ach); err != nil || res.Transaction.Status.Open() {
		t.Fatalf("ACH sale: %v %+v", err, res)
	}

	history, err := audit.HistoryWithOutcomes(ctx, e.db.Pool, audit.Merchant(e.merchant.ID), 50, e.svc.Ledger())
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, h := range history {
		lines = append(lines, h.Text)
	}
	all := strings.Join(lines, "\n")
	for _, want := range []string{
		"tried to void a sale of $1,234.50 on Mastercard ending 4444 — the processor refused: already settled",
		"set the tip of a sale on Visa ending 1111 to $6.00; the total is now $46.00",
		"took an ACH sale of $80.00",
		"took a sale of $40.00 on Visa ending 1111",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("the history does not say %q:\n%s", want, all)
		}
	}
	for _, never := range []string{"voided a", "adjusted a tip", "a ach"} {
		if strings.Contains(all, never) {
			t.Errorf("the history says %q:\n%s", never, all)
		}
	}
}
