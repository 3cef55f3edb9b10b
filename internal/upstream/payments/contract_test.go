package payments_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/upstream/payments"
)

// Every operation of the client against the sandbox over HTTP.
func TestEveryOperation(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client(t, nil)
	ctx := context.Background()
	ok := func(name string, tr *payments.Transaction, err error, wantType string) *payments.Transaction {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if tr.Outcome() != payments.Approved || tr.TransactionType != wantType {
			t.Fatalf("%s: %s %s %q", name, tr.TransactionType, tr.Outcome(), tr.ResultMessage)
		}
		return tr
	}
	visa := card(t, visaNumber)
	sale, err := c.Sale(ctx, e.acct, payments.CardPayment{Ref: newRef(), Card: visa, Amount: payments.Cents(1000),
		TipAmount: "1.00", TaxAmount: "0.80", Billing: payments.Billing{Name: "Dana Doe", Address: "1 Main St", PostalCode: "98101"},
		Level2: &payments.Level2{PurchaseID: "P-1", PurchaseOrderNumber: "PO-1"}})
	ok("sale", sale, err, payments.TypeCreditSale)
	if sale.AmountProcessed != "11.00" || sale.MaskedAccount != "************1111" || sale.AVSResponseCode != "Y" ||
		sale.CVVResponseCode != "M" || sale.BatchNumber != "1" || sale.Level2 == nil || sale.Cashier != "cashier-1" {
		t.Errorf("sale answer: %+v", sale)
	}
	auth, err := c.Authorize(ctx, e.acct, payments.CardPayment{Ref: newRef(), Card: visa, Amount: "25.00"})
	ok("authorization", auth, err, payments.TypeCreditAuth)
	adj, err := c.Adjust(ctx, e.acct, payments.Adjustment{Ref: newRef(), UniqueTransID: auth.UniqueTransID,
		Type: payments.AuthAdjust, Amount: "20.00", TipAmount: "2.00"})
	ok("adjust auth", adj, err, payments.TypeAdjustment)
	force, err := c.Force(ctx, e.acct, payments.Force{Ref: newRef(), UniqueTransID: auth.UniqueTransID})
	ok("force", force, err, payments.TypeCreditForce)
	if force.AmountProcessed != "22.00" {
		t.Errorf("force captured %s, want 22.00", force.AmountProcessed)
	}
	tip, err := c.Adjust(ctx, e.acct, payments.Adjustment{Ref: newRef(), UniqueTransID: sale.UniqueTransID,
		Type: payments.SaleAdjust, TipAmount: "3.00"})
	ok("adjust sale", tip, err, payments.TypeAdjustment)
	tok, err := c.TokenizeCard(ctx, e.acct, payments.CardTokenize{Ref: newRef(), Card: visa})
	ok("tokenize", tok, err, payments.TypeCreditSaveCard)
	paid, err := c.TokenizedPayment(ctx, e.acct, payments.TokenizedPayment{Ref: newRef(), UniqueTransID: tok.UniqueTransID, Amount: "5.00"})
	ok("tokenized payment", paid, err, payments.TypeCreditSale)
	auth2, err := c.TokenizedAuthorization(ctx, e.acct, payments.TokenizedPayment{Ref: newRef(), UniqueTransID: tok.UniqueTransID, Amount: "6.00"})
	ok("tokenized authorization", auth2, err, payments.TypeCreditAuth)
	ref, err := c.TokenizedRefund(ctx, e.acct, payments.TokenizedRefund{Ref: newRef(), UniqueTransID: paid.UniqueTransID, Amount: "5.00"})
	ok("tokenized refund", ref, err, payments.TypeCreditReturn)
	refund, err := c.Refund(ctx, e.acct, payments.CardRefund{Ref: newRef(), Card: visa, Amount: "2.00"})
	ok("refund", refund, err, payments.TypeCreditReturn)
	void, err := c.Void(ctx, e.acct, payments.VoidRequest{Ref: newRef(), UniqueTransID: auth2.UniqueTransID})
	ok("void", void, err, payments.TypeVoid)
	achSale, err := c.ACHSale(ctx, e.acct, payments.ACHPayment{Ref: newRef(), Account: bank(t, "000123456789"), Amount: "40.00", CheckNumber: "1001"})
	ok("ach sale", achSale, err, payments.TypeACHSale)
	achRefund, err := c.ACHRefund(ctx, e.acct, payments.ACHPayment{Ref: newRef(), Account: bank(t, "000123456789"), Amount: "10.00"})
	ok("ach refund", achRefund, err, payments.TypeACHReturn)
	achTok, err := c.TokenizeBankAccount(ctx, e.acct, payments.ACHTokenize{Ref: newRef(), Account: bank(t, "000123456789")})
	ok("ach tokenize", achTok, err, payments.TypeACHSaveAccount)
	back, err := c.Get(ctx, e.acct, sale.ExternalTransactionID)
	if err != nil || back.UniqueTransID != sale.UniqueTransID || back.AmountTipped != "3.00" {
		t.Fatalf("read-back: %+v %v", back, err)
	}
	if _, err := c.Get(ctx, e.acct, newRef().ExternalTransactionID); !errors.Is(err, payments.ErrNotFound) {
		t.Fatalf("read-back of nothing: %v", err)
	}
	if n := e.count(t); n != 14 {
		t.Errorf("%d transactions upstream, want 14", n)
	}
}

// A decline is a typed result, not an error.
func TestDeclineIsAResult(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client(t, nil)
	for number, reason := range map[string]string{"4000000000000002": "Declined", "4000000000009995": "Insufficient Funds"} {
		tr, err := c.Sale(context.Background(), e.acct, payments.CardPayment{Ref: newRef(), Card: card(t, number), Amount: "10.00"})
		if err != nil || tr.Approved() || tr.Outcome() != payments.Declined || tr.DeclineReason() != reason {
			t.Fatalf("%s: %+v %v", number, tr, err)
		}
	}
	tr, err := c.Sale(context.Background(), e.acct, payments.CardPayment{Ref: newRef(), Card: card(t, "4000000000000051"), Amount: "10.00"})
	if err != nil || tr.Outcome() != payments.PartiallyApproved || tr.AmountProcessed != "5.00" || tr.AmountBalance != "5.00" {
		t.Fatalf("partial: %+v %v", tr, err)
	}
}

// Refusals carry the status and the upstream's message; a void of a
// settled transaction is ErrAlreadySettled; a late void is a refund.
func TestRefusalsAndVoidRules(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client(t, nil)
	ctx := context.Background()
	sale, err := c.Sale(ctx, e.acct, payments.CardPayment{Ref: newRef(), Card: card(t, visaNumber), Amount: "30.00"})
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(26 * time.Minute)
	late, err := c.Void(ctx, e.acct, payments.VoidRequest{Ref: newRef(), UniqueTransID: sale.UniqueTransID})
	if err != nil || !late.IsRefund() || late.UniqueTransID == sale.UniqueTransID {
		t.Fatalf("late void: %+v %v", late, err)
	}
	other, _ := c.Sale(ctx, e.acct, payments.CardPayment{Ref: newRef(), Card: card(t, visaNumber), Amount: "9.00"})
	e.clock.Advance(24 * time.Hour)
	_, err = c.Void(ctx, e.acct, payments.VoidRequest{Ref: newRef(), UniqueTransID: other.UniqueTransID})
	var pe *payments.Error
	if !errors.Is(err, payments.ErrAlreadySettled) || !errors.As(err, &pe) || pe.StatusCode != 409 || pe.Message == "" {
		t.Fatalf("void of a settled sale: %v", err)
	}
	_, err = c.TokenizedRefund(ctx, e.acct, payments.TokenizedRefund{Ref: newRef(), UniqueTransID: other.UniqueTransID, Amount: "9.01"})
	if !errors.As(err, &pe) || pe.StatusCode != 400 || !strings.Contains(pe.Message, "transactionData.amount") {
		t.Fatalf("over-refund: %v", err)
	}
	bad := payments.Account{OID: e.acct.OID, Token: "not-a-token"}
	if _, err := c.Get(ctx, bad, newRef().ExternalTransactionID); !errors.Is(err, payments.ErrUnauthorized) {
		t.Fatalf("bad token: %v", err)
	}
	// The client checks what it can before sending anything.
	var ve *payments.ValidationError
	_, err = c.Sale(ctx, e.acct, payments.CardPayment{Ref: payments.Ref{ExternalTransactionID: "x"}, Card: card(t, visaNumber), Amount: "1"})
	if !errors.As(err, &ve) || ve.Field != "externalTransactionId" {
		t.Fatalf("client-side check: %v", err)
	}
}

// The wire body carries the full card number and security code (the only
// place that may), the published headers and the sanitised appVersion.
func TestWireBodyAndHeaders(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client(t, nil)
	ref := newRef()
	if _, err := c.Sale(context.Background(), e.acct, payments.CardPayment{Ref: ref, Card: card(t, visaNumber), Amount: "1.00"}); err != nil {
		t.Fatal(err)
	}
	reqs := e.bodies.all()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	var body struct {
		TransactionData map[string]string `json:"transactionData"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	d := body.TransactionData
	if d["cardNumber"] != visaNumber || d["cardSecurityCode"] != "123" || d["cardExpirationDate"] != "12-30" ||
		d["externalTransactionId"] != ref.ExternalTransactionID || d["amount"] != "1.00" {
		t.Fatalf("body: %s", r.Body)
	}
	if r.Method != "PUT" || r.Path != "/virtualterminal/v1/orgs/"+e.acct.OID+"/transactions/sale" {
		t.Errorf("%s %s", r.Method, r.Path)
	}
	if r.Header.Get("Idempotency-Key") != ref.ExternalTransactionID || r.Header.Get("Authorization") != "Bearer "+e.acct.Token {
		t.Errorf("headers: %v", r.Header)
	}
	if got := r.Header.Get("Appversion"); got != "v1.4.0-3-gabc123-dirty" {
		t.Errorf("appVersion %q", got)
	}
}

func TestSanitizeAppVersion(t *testing.T) {
	for in, want := range map[string]string{
		"v1.2.3":                          "v1.2.3",
		"v1.4.0-3-gabc123+dirty (go1.26)": "v1.4.0-3-gabc123-dirty -go1.26-",
		"  dev  ":                         "dev",
		strings.Repeat("a", 60):           strings.Repeat("a", 50),
		"":                                "",
	} {
		if got := payments.SanitizeAppVersion(in); got != want {
			t.Errorf("SanitizeAppVersion(%q) = %q, want %q", in, got, want)
		}
	}
}
