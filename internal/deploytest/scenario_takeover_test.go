package deploytest_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/merchants"
	"github.com/payportal/portal/internal/payments"
	"github.com/payportal/portal/internal/terminals"
	"github.com/payportal/portal/internal/testutil"
)

// terminalTakenOver: a sale launched on a card terminal is followed by one
// replica; killed while the cardholder is still at the terminal, another
// replica takes the sale over and records the result. The terminal received
// one transaction.
func (w *work) terminalTakenOver(t *testing.T) {
	tp, a, ctx := w.tp, w.tp.portal, context.Background()
	merchantID := boardMerchant(t, a, w.admin, "Till Shop")
	var loc struct {
		LocationID string `json:"locationId"`
		APIKey     string `json:"apiKey"`
	}
	tp.sandboxCall(t, http.MethodPost, "/_sandbox/admin/api/terminals/locations", map[string]string{"name": "Till"}, &loc)
	tp.sandboxCall(t, http.MethodGet, "/_sandbox/admin/api/terminals/locations/"+loc.LocationID, nil, &loc)
	if err := a.Merchants.SetTerminalKey(ctx, w.admin, merchantID, merchants.TerminalKeyInput{APIKey: loc.APIKey}); err != nil {
		t.Fatal(err)
	}
	if err := a.Merchants.AddLocation(ctx, w.admin, merchantID, merchants.LocationInput{LocationID: loc.LocationID, Name: "Till", TestMode: true}); err != nil {
		t.Fatal(err)
	}
	if err := a.Terminals.Refresh(ctx, w.admin, merchantID, loc.LocationID); err != nil {
		t.Fatal(err)
	}
	// Launched by the test's own portal, which follows nothing: a replica
	// takes the sale over at once and polls it.
	l, err := a.Terminals.Launch(ctx, w.admin, merchantID, terminals.LaunchRequest{FormToken: uuid.NewString(), Kind: "sale",
		Amount: "0.50", LocationID: loc.LocationID, Device: "EMULATOR"})
	if err != nil || l.State != terminals.StateWaiting {
		t.Fatalf("launch: %v %+v", err, l)
	}
	launch := func() *terminals.Launch {
		got, err := a.Terminals.Store().Launch(ctx, nil, l.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	var victim *replica
	testutil.Eventually(t, 30*time.Second, "a replica to follow the sale", func() (bool, string) {
		if f := launch().Follower; f != nil {
			victim = tp.replicaOf(*f)
		}
		return victim != nil, "not yet"
	})
	killed := tp.kill(t, victim)
	// The cardholder finishes while the replica following the sale is dead.
	tp.sandboxCall(t, http.MethodPost, "/_sandbox/admin/api/clock/advance", map[string]string{"by": "10s"}, nil)
	testutil.Eventually(t, 60*time.Second, "another replica to record the sale", func() (bool, string) {
		got := launch()
		return got.State == terminals.StateApproved, string(got.State)
	})
	w.figures = append(w.figures, fmt.Sprintf("a terminal sale followed by a killed replica was recorded by another %.1f s after the kill", time.Since(killed).Seconds()))
	t.Log(w.figures[len(w.figures)-1])
	line, err := a.Payments.Ledger().Get(ctx, nil, merchantID, l.ID)
	if err != nil || line.Status != payments.StatusApproved || line.ApprovedCents != 50 {
		t.Errorf("ledger line: %v %+v", err, line)
	}
	var txs []struct{}
	tp.sandboxCall(t, http.MethodGet, "/_sandbox/admin/api/terminals/transactions", nil, &txs)
	if len(txs) != 1 {
		t.Errorf("the terminal received %d transactions", len(txs))
	}
	tp.waitServing(t, victim)
}

// paymentReadBack: a card sale whose answer is lost (the processor charged
// it) has an unknown outcome, checked in the background by a replica; that
// replica is killed mid-check, and another reads the sale back: one upstream
// transaction, one approved ledger line.
func (w *work) paymentReadBack(t *testing.T) {
	tp, a, ctx := w.tp, w.tp.portal, context.Background()
	merchantID := boardMerchant(t, a, w.admin, "Corner Bakery")
	var acct struct{ OID, Token string }
	tp.sandboxCall(t, http.MethodPost, "/_sandbox/admin/api/payments/accounts", map[string]string{"name": "Corner Bakery"}, &acct)
	if err := a.Merchants.SetPaymentAccount(ctx, w.admin, merchantID, merchants.PaymentInput{OID: acct.OID, Token: acct.Token}); err != nil {
		t.Fatal(err)
	}
	cashier := paymentsMember(t, a, tp.smtp, w.admin, merchantID, "cashier@bakery.example", merchants.PermTakePayments)
	token, err := a.Payments.MintToken(&payments.Merchant{ID: merchantID}, cashier, payments.PurposePay)
	if err != nil {
		t.Fatal(err)
	}
	form := &payments.CardPaymentForm{FormToken: token, Action: "sale", Amount: "77.00",
		Expiry: fmt.Sprintf("12/%02d", time.Now().Year()%100+3), BillingZIP: "94107", Reference: "INV-24"}
	_ = form.CardNumber.UnmarshalParam("4111111111111111")
	_ = form.SecurityCode.UnmarshalParam("123")
	// The processor acts on every request and every answer is lost.
	tp.sandboxCall(t, http.MethodPut, "/_sandbox/admin/api/faults", map[string]any{"actThenDropRate": 1, "latency": "300ms"}, nil)
	res, err := a.Payments.PayCard(ctx, cashier, merchantID, form)
	if err != nil || !res.Transaction.Status.Open() {
		t.Fatalf("the sale's outcome should be unknown: %v %+v", err, res)
	}
	id := res.Transaction.ID
	var victim *replica
	testutil.Eventually(t, 30*time.Second, "a replica to check the sale", func() (bool, string) {
		victim, _ = tp.runningOn(t, "payments_check")
		return victim != nil, "no check running"
	})
	killed := tp.kill(t, victim)
	tp.sandboxCall(t, http.MethodPut, "/_sandbox/admin/api/faults", map[string]any{}, nil)
	testutil.Eventually(t, 90*time.Second, "another replica to read the sale back", func() (bool, string) {
		line, err := a.Payments.Ledger().Get(ctx, nil, merchantID, id)
		if err != nil {
			t.Fatal(err)
		}
		return line.Status == payments.StatusApproved, string(line.Status)
	})
	w.figures = append(w.figures, fmt.Sprintf("a sale whose check ran on a killed replica was read back by another %.1f s after the kill", time.Since(killed).Seconds()))
	t.Log(w.figures[len(w.figures)-1])
	var txs []struct{}
	tp.sandboxCall(t, http.MethodGet, "/_sandbox/admin/api/payments/transactions?oid="+acct.OID, nil, &txs)
	if len(txs) != 1 {
		t.Errorf("%d upstream transactions, want 1", len(txs))
	}
	tp.waitServing(t, victim)
}
