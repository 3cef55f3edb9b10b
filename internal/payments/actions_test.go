package payments_test

import (
	"context"
	"testing"

	"github.com/payportal/portal/internal/payments"
)

// A transaction's page offers a form (mints its token) only when the user's rights and
// the transaction's state allow it: Reverse to whoever may void or refund what the plan
// allows, Capture on an approved authorization and Tip on an unsettled card sale or
// captured authorization to whoever may capture and adjust, a receipt on a payment that
// succeeded to whoever takes payments or refunds; nothing on an operation, and nothing
// for a suspended merchant. One row per decision.
func TestTransactionPageOffersOnlyTheFormsRightsAndStateAllow(t *testing.T) {
	t.Parallel()
	e := newSvcEnv(t, svcOptions{})
	ctx := context.Background()
	pay := func(action, amount string) *payments.Transaction {
		t.Helper()
		f := e.cardForm("4111111111111111", amount)
		f.Action = action
		res, err := e.svc.PayCard(ctx, e.user, e.merchant.ID, f)
		if err != nil || res.Transaction.Status != payments.StatusApproved {
			t.Fatalf("%s: %v %+v", action, err, res)
		}
		return res.Transaction
	}
	sale := pay("sale", "10.00")
	auth := pay("authorization", "11.00")
	captured := pay("authorization", "12.00")
	token, err := e.svc.MintToken(e.merchant, e.user, payments.PurposeCapture(captured.ID))
	if err != nil {
		t.Fatal(err)
	}
	capture, err := e.svc.Capture(ctx, e.user, e.merchant.ID, captured.ID, &payments.CaptureForm{FormToken: token, Amount: "12.00"})
	if err != nil || capture.Transaction.Status != payments.StatusApproved {
		t.Fatalf("capture: %v %+v", err, capture)
	}

	all := []payments.Permission{payments.PermView, payments.PermTakePayments, payments.PermCaptureAdjust,
		payments.PermVoid, payments.PermRefund, payments.PermSavedMethods}
	view := []payments.Permission{payments.PermView}
	type offer struct{ reverse, capture, tip, receipt bool }
	for _, tt := range []struct {
		name   string
		rights []payments.Permission
		tx     *payments.Transaction
		want   offer
	}{
		{"all rights, a sale", all, sale, offer{reverse: true, tip: true, receipt: true}},
		{"all rights, an authorization", all, auth, offer{reverse: true, capture: true, receipt: true}},
		{"all rights, a captured authorization", all, captured, offer{reverse: true, tip: true, receipt: true}},
		{"all rights, the capture (an operation)", all, capture.Transaction, offer{}},
		{"view only, a sale", view, sale, offer{}},
		{"view only, an authorization", view, auth, offer{}},
		{"void only, a sale", []payments.Permission{payments.PermVoid}, sale, offer{reverse: true}},
		{"refund only, a sale", []payments.Permission{payments.PermRefund}, sale, offer{reverse: true, receipt: true}},
		{"capture and adjust, a sale", []payments.Permission{payments.PermCaptureAdjust}, sale, offer{tip: true}},
		{"capture and adjust, an authorization", []payments.Permission{payments.PermCaptureAdjust}, auth, offer{capture: true}},
		{"take payments, a sale", []payments.Permission{payments.PermTakePayments}, sale, offer{receipt: true}},
		{"saved methods, a sale", []payments.Permission{payments.PermSavedMethods}, sale, offer{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e.ms.setRights(tt.rights...)
			v, err := e.svc.Transaction(ctx, e.user, e.merchant.ID, tt.tx.ID)
			if err != nil {
				t.Fatal(err)
			}
			got := offer{v.ReverseToken != "", v.CaptureToken != "", v.TipToken != "", v.CanReceipt}
			if got != tt.want {
				t.Errorf("offered %+v, want %+v", got, tt.want)
			}
		})
	}

	e.ms.setRights(all...)
	e.ms.setSuspended(true)
	v, err := e.svc.Transaction(ctx, e.user, e.merchant.ID, sale.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := (offer{v.ReverseToken != "", v.CaptureToken != "", v.TipToken != "", v.CanReceipt}); got != (offer{}) {
		t.Errorf("suspended merchant, a sale: offered %+v, want nothing", got)
	}
}
