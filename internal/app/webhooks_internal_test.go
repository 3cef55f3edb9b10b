package app

import (
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/payments"
	"github.com/payportal/portal/internal/webhooks"
)

// What partners hear of each ledger answer.
func TestPaymentNews(t *testing.T) {
	original := uuid.New()
	cases := []struct {
		before payments.Status
		kind   payments.Kind
		status payments.Status
		parent *uuid.UUID
		want   []webhooks.EventType
	}{
		{payments.StatusPending, payments.KindSale, payments.StatusApproved, nil, []webhooks.EventType{webhooks.PaymentApproved}},
		{payments.StatusPending, payments.KindAuthorization, payments.StatusPartial, nil, []webhooks.EventType{webhooks.PaymentApproved}},
		{payments.StatusPending, payments.KindSale, payments.StatusDeclined, nil, []webhooks.EventType{webhooks.PaymentDeclined}},
		{payments.StatusPending, payments.KindSale, payments.StatusFailed, nil, []webhooks.EventType{webhooks.PaymentDeclined}},
		{payments.StatusPending, payments.KindSale, payments.StatusChecking, nil, nil},
		{payments.StatusChecking, payments.KindSale, payments.StatusApproved, nil, []webhooks.EventType{webhooks.PaymentOutcomeResolved, webhooks.PaymentApproved}},
		{payments.StatusChecking, payments.KindSale, payments.StatusNotCharged, nil, []webhooks.EventType{webhooks.PaymentOutcomeResolved}},
		{payments.StatusPending, payments.KindVoid, payments.StatusApproved, &original, []webhooks.EventType{webhooks.PaymentVoided}},
		{payments.StatusPending, payments.KindRefund, payments.StatusApproved, &original, []webhooks.EventType{webhooks.PaymentRefunded}},
		{payments.StatusPending, payments.KindRefund, payments.StatusDeclined, &original, []webhooks.EventType{webhooks.PaymentDeclined}},
		{payments.StatusPending, payments.KindCapture, payments.StatusApproved, &original, nil},
		{payments.StatusPending, payments.KindTipAdjust, payments.StatusApproved, &original, nil},
		{payments.StatusPending, payments.KindSaveMethod, payments.StatusApproved, nil, nil},
	}
	for _, c := range cases {
		tx := &payments.Transaction{ID: uuid.New(), MerchantID: uuid.New(), Kind: c.kind, Status: c.status, ParentID: c.parent,
			Source: payments.SourceCard, AmountCents: 1250, ApprovedCents: 1250}
		var got []webhooks.EventType
		for _, n := range paymentNews(c.before, tx) {
			got = append(got, n.Type)
			if n.MerchantID != tx.MerchantID || n.Data.Amount != "12.50" || n.Data.Currency != "USD" {
				t.Errorf("%+v: news %+v", c, n)
			}
			if n.Type == webhooks.PaymentVoided && (n.Data.ID != original || n.Data.State != "voided") {
				t.Errorf("a void announces the voided payment: %+v", n.Data)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s %s %s→%s: %v, want %v", c.kind, c.before, c.before, c.status, got, c.want)
		}
	}
}
