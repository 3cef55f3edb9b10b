package payments_test

import (
	"context"
	"strings"
	"testing"

	"github.com/payportal/portal/internal/sandbox/kit"
	"github.com/payportal/portal/internal/upstream/payments"
)

// No card number reaches a log: every operation runs with a known test
// card (and bank account and security code), under faults that make the
// client retry and read back, while all log output of the client and the
// sandbox is captured; the number appears nowhere, nor do the tokens.
func TestNoCardDataInLogs(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client(t, nil)
	ctx := context.Background()
	const number, code, acctNo = "5555555555554444", "321", "987650001234"
	n, _ := payments.NewCardNumber(number)
	sc, _ := payments.NewSecurityCode(code)
	k := payments.Card{Number: n, Expiry: "12-30", SecurityCode: sc}
	an, _ := payments.NewBankAccountNumber(acctNo)
	b := payments.BankAccount{HolderName: "Dana Doe", Number: an, RoutingNumber: routing}
	must := func(tr *payments.Transaction, err error) *payments.Transaction {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	e.faults.FailNext("payments", -1, 502, 0)
	sale := must(c.Sale(ctx, e.acct, payments.CardPayment{Ref: newRef(), Card: k, Amount: "50.00"}))
	auth := must(c.Authorize(ctx, e.acct, payments.CardPayment{Ref: newRef(), Card: k, Amount: "20.00"}))
	must(c.Adjust(ctx, e.acct, payments.Adjustment{Ref: newRef(), UniqueTransID: auth.UniqueTransID, Type: payments.AuthAdjust, Amount: "19.00"}))
	must(c.Force(ctx, e.acct, payments.Force{Ref: newRef(), UniqueTransID: auth.UniqueTransID}))
	must(c.Adjust(ctx, e.acct, payments.Adjustment{Ref: newRef(), UniqueTransID: sale.UniqueTransID, Type: payments.SaleAdjust, TipAmount: "1.00"}))
	must(c.Refund(ctx, e.acct, payments.CardRefund{Ref: newRef(), Card: k, Amount: "5.00"}))
	tok := must(c.TokenizeCard(ctx, e.acct, payments.CardTokenize{Ref: newRef(), Card: k}))
	paid := must(c.TokenizedPayment(ctx, e.acct, payments.TokenizedPayment{Ref: newRef(), UniqueTransID: tok.UniqueTransID, Amount: "3.00"}))
	a2 := must(c.TokenizedAuthorization(ctx, e.acct, payments.TokenizedPayment{Ref: newRef(), UniqueTransID: tok.UniqueTransID, Amount: "4.00"}))
	must(c.TokenizedRefund(ctx, e.acct, payments.TokenizedRefund{Ref: newRef(), UniqueTransID: paid.UniqueTransID, Amount: "1.00"}))
	must(c.Void(ctx, e.acct, payments.VoidRequest{Ref: newRef(), UniqueTransID: a2.UniqueTransID}))
	must(c.ACHSale(ctx, e.acct, payments.ACHPayment{Ref: newRef(), Account: b, Amount: "9.00"}))
	must(c.ACHRefund(ctx, e.acct, payments.ACHPayment{Ref: newRef(), Account: b, Amount: "2.00"}))
	must(c.TokenizeBankAccount(ctx, e.acct, payments.ACHTokenize{Ref: newRef(), Account: b}))
	must(c.Get(ctx, e.acct, sale.ExternalTransactionID))
	// Refusals and declines log too.
	_, _ = c.Sale(ctx, e.acct, payments.CardPayment{Ref: newRef(), Card: k, Amount: "2000.00"})
	_, _ = c.Sale(ctx, e.acct, payments.CardPayment{Ref: newRef(), Card: card(t, "4000000000000119"), Amount: "1.00"})
	_ = e.faults.Set(kit.Faults{})

	logs := e.logs.String()
	for _, secret := range []string{number, "555555555555", "5555 5555", code + `"`, acctNo, "98765000", e.acct.Token} {
		if strings.Contains(logs, secret) {
			t.Errorf("logs contain %q", secret)
		}
	}
	for _, want := range []string{"op=sale", "op=\"sale read-back\"", "path=/orgs/" + e.acct.OID + "/transactions/sale",
		"area=payments", "acted, then dropped", "status=504"} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %q", want)
		}
	}
}
