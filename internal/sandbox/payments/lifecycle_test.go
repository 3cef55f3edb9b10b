package payments_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
)

// ref builds a request that refers to an earlier transaction.
func ref(uniqueTransID string, fields map[string]any) map[string]any {
	return data(with(map[string]any{"uniqueTransId": uniqueTransID, "externalTransactionId": uuid.NewString()}, fields))
}

// Void rules: within 25 minutes a void voids; later, still unsettled, it
// refunds with a new uniqueTransId; once settled it is refused.
func TestVoidRules(t *testing.T) {
	e := newEnv(t, nil)
	s1 := mustOK(t, e.put(t, "sale", data(sale(visa, "12.00"))))
	e.clock.Advance(24 * time.Minute)
	v := mustOK(t, e.put(t, "void", ref(s1.field(t, "uniqueTransId"), nil)))
	if v.field(t, "transactionType") != "Void" || v.field(t, "amountProcessed") != "12.00" {
		t.Fatalf("void: %s", v.Raw)
	}
	wantError(t, e.put(t, "void", ref(s1.field(t, "uniqueTransId"), nil)), http.StatusConflict, "already been voided")

	s2 := mustOK(t, e.put(t, "sale", data(sale(visa, "30.00"))))
	e.clock.Advance(26 * time.Minute)
	r := mustOK(t, e.put(t, "void", ref(s2.field(t, "uniqueTransId"), nil)))
	if r.field(t, "transactionType") != "CreditReturn" || r.field(t, "uniqueTransId") == s2.field(t, "uniqueTransId") ||
		r.field(t, "amountProcessed") != "30.00" {
		t.Fatalf("late void: %s", r.Raw)
	}
	wantError(t, e.put(t, "void", ref(s2.field(t, "uniqueTransId"), nil)), http.StatusConflict, "refunded in full")

	s3 := mustOK(t, e.put(t, "sale", data(sale(visa, "8.00"))))
	e.clock.Advance(24 * time.Hour) // past the 22:00 cut-off
	wantError(t, e.put(t, "void", ref(s3.field(t, "uniqueTransId"), nil)), http.StatusConflict, "settled")
	wantError(t, e.put(t, "void", ref(newEnvID(), nil)), http.StatusNotFound, "uniqueTransId")
}

// newEnvID is a well-formed uniqueTransId that names nothing.
func newEnvID() string {
	return "0123456789abcdef0123456789abcdef-0123456789abcdef0123456789abcdef"
}

// Batches close at the daily cut-off on the sandbox clock and on "settle
// now"; each answer carries its batch number.
func TestSettlement(t *testing.T) {
	e := newEnv(t, nil)
	mustOK(t, e.put(t, "sale", data(sale(visa, "10.00"))))
	mustOK(t, e.put(t, "refund", data(sale(visa, "4.00"))))
	e.clock.Set(time.Date(2026, 3, 2, 22, 0, 0, 0, time.UTC)) // exactly the cut-off
	s := mustOK(t, e.put(t, "sale", data(sale(visa, "7.00"))))
	if s.field(t, "batchNumber") != "2" {
		t.Fatalf("after the cut-off the open batch is %s, want 2", s.field(t, "batchNumber"))
	}
	b := e.admin(t, http.MethodGet, "batches?oid="+e.acct.OID, nil)
	var batches []map[string]any
	if err := jsonArray(b.Raw, &batches); err != nil || len(batches) != 2 {
		t.Fatalf("batches: %s", b.Raw)
	}
	if batches[1]["number"] != 1.0 || batches[1]["netCents"] != 600.0 || batches[1]["settledAt"] == nil {
		t.Errorf("settled batch: %v", batches[1])
	}
	if batches[0]["number"] != 2.0 || batches[0]["settledAt"] != nil || batches[0]["count"] != 1.0 {
		t.Errorf("open batch: %v", batches[0])
	}
	closed := e.admin(t, http.MethodPost, "settle", map[string]any{"oid": e.acct.OID})
	if closed.Status != http.StatusOK || jsonArray(closed.Raw, &batches) != nil || len(batches) != 1 {
		t.Fatalf("settle now: %d %s", closed.Status, closed.Raw)
	}
	wantError(t, e.put(t, "void", ref(s.field(t, "uniqueTransId"), nil)), http.StatusConflict, "settled")
	if s2 := mustOK(t, e.put(t, "sale", data(sale(visa, "1.00")))); s2.field(t, "batchNumber") != "3" {
		t.Errorf("after settle now the open batch is %s", s2.field(t, "batchNumber"))
	}
}

// Authorizations: captured by tokenizedForce into the batch, adjusted
// before, never settled uncaptured, and lapsing.
func TestAuthorizationCaptureAndLapse(t *testing.T) {
	e := newEnv(t, func(o *optionsT) { o.AuthLapse = 72 * time.Hour })
	a := mustOK(t, e.put(t, "authorization", data(with(sale(visa, "50.00"), map[string]any{"tipAmount": "5.00"}))))
	id := a.field(t, "uniqueTransId")
	wantError(t, e.put(t, "tokenizedForce", ref(id, map[string]any{"amount": "60.00"})), http.StatusBadRequest, "amount")
	adj := mustOK(t, e.put(t, "adjust", ref(id, map[string]any{"adjustmentType": "AuthAdjust", "amount": "55.00"})))
	if adj.field(t, "transactionType") != "Adjustment" || adj.field(t, "amountProcessed") != "60.00" {
		t.Fatalf("adjust: %s", adj.Raw)
	}
	f := mustOK(t, e.put(t, "tokenizedForce", ref(id, map[string]any{"tipAmount": "7.00"})))
	if f.field(t, "transactionType") != "CreditForce" || f.field(t, "amountProcessed") != "62.00" {
		t.Fatalf("force: %s", f.Raw)
	}
	wantError(t, e.put(t, "tokenizedForce", ref(id, nil)), http.StatusConflict, "already been captured")
	wantError(t, e.put(t, "void", ref(id, nil)), http.StatusConflict, "captured")

	lapsing := mustOK(t, e.put(t, "authorization", data(sale(visa, "9.00"))))
	e.clock.Advance(73 * time.Hour)
	wantError(t, e.put(t, "tokenizedForce", ref(lapsing.field(t, "uniqueTransId"), nil)), http.StatusConflict, "lapsed")
	txns, _ := e.area.Transactions(e.acct.OID, 0)
	for _, x := range txns {
		if x.UniqueTransID == lapsing.field(t, "uniqueTransId") && (x.Status != "lapsed" || x.SettledAt != nil) {
			t.Errorf("uncaptured authorization: status %q settled %v", x.Status, x.SettledAt)
		}
		if x.Type == "CreditForce" && x.SettledAt == nil {
			t.Error("the capture did not settle at the cut-off")
		}
	}
}

// SaleAdjust changes only a sale's tip, before settlement.
func TestSaleAdjust(t *testing.T) {
	e := newEnv(t, nil)
	s := mustOK(t, e.put(t, "sale", data(with(sale(visa, "20.00"), map[string]any{"tipAmount": "2.00"}))))
	id := s.field(t, "uniqueTransId")
	wantError(t, e.put(t, "adjust", ref(id, map[string]any{"adjustmentType": "SaleAdjust", "amount": "25.00"})), http.StatusBadRequest, "amount")
	wantError(t, e.put(t, "adjust", ref(id, map[string]any{"adjustmentType": "SaleAdjust"})), http.StatusBadRequest, "tipAmount")
	wantError(t, e.put(t, "adjust", ref(id, map[string]any{"adjustmentType": "AuthAdjust", "amount": "1.00"})), http.StatusBadRequest, "uniqueTransId")
	adj := mustOK(t, e.put(t, "adjust", ref(id, map[string]any{"adjustmentType": "SaleAdjust", "tipAmount": "4.00"})))
	if adj.field(t, "amountTipped") != "4.00" || adj.field(t, "amountProcessed") != "24.00" {
		t.Fatalf("adjust: %s", adj.Raw)
	}
	back := e.get(t, s.field(t, "externalTransactionId"))
	if back.field(t, "amountProcessed") != "24.00" {
		t.Errorf("read-back after adjust: %s", back.Raw)
	}
	e.clock.Advance(24 * time.Hour)
	wantError(t, e.put(t, "adjust", ref(id, map[string]any{"adjustmentType": "SaleAdjust", "tipAmount": "5.00"})), http.StatusConflict, "settled")
}

// Linked refunds are capped at what is left; returns the operator would
// hold come back approved with the review flag.
func TestRefundsAndReview(t *testing.T) {
	e := newEnv(t, nil)
	s := mustOK(t, e.put(t, "sale", data(sale(visa, "40.00"))))
	id := s.field(t, "uniqueTransId")
	r1 := mustOK(t, e.put(t, "tokenizedRefund", ref(id, map[string]any{"amount": "15.00"})))
	if r1.field(t, "heldForReview") != "true" || r1.field(t, "reviewReasons") != "partial" {
		t.Errorf("partial linked refund: %s", r1.Raw)
	}
	wantError(t, e.put(t, "tokenizedRefund", ref(id, map[string]any{"amount": "25.01"})), http.StatusBadRequest, "25.00 left")
	mustOK(t, e.put(t, "tokenizedRefund", ref(id, map[string]any{"amount": "25.00"})))
	wantError(t, e.put(t, "tokenizedRefund", ref(id, map[string]any{"amount": "0.01"})), http.StatusBadRequest, "0.00 left")
	wantError(t, e.put(t, "void", ref(id, nil)), http.StatusConflict, "refunds")

	full := mustOK(t, e.put(t, "refund", data(sale(visa, "40.00"))))
	if full.field(t, "heldForReview") != "" {
		t.Errorf("a full refund to the card charged is not held: %s", full.Raw)
	}
	other := mustOK(t, e.put(t, "refund", data(sale("5555555555554444", "10.00"))))
	if other.field(t, "reviewReasons") != "otherCard" {
		t.Errorf("refund to another card: %s", other.Raw)
	}
	large := mustOK(t, e.put(t, "refund", data(sale(visa, "90.00"))))
	if large.field(t, "reviewReasons") != "largerThanUsual" {
		t.Errorf("larger refund: %s", large.Raw)
	}
}

// ACH sales to the returning test accounts are returned after settlement;
// the admin can return any settled ACH sale; read-back shows it.
func TestACHReturns(t *testing.T) {
	e := newEnv(t, nil)
	r01 := mustOK(t, e.put(t, "ach/sale", data(ach("1111111111", "30.00"))))
	r29 := mustOK(t, e.put(t, "ach/sale", data(ach("2222222222", "31.00"))))
	plain := mustOK(t, e.put(t, "ach/sale", data(with(ach(bankAcct, "32.00"), map[string]any{"accountType": "Savings"}))))
	if r01.field(t, "maskedAccount") != "******1111" || r01.field(t, "accountCardType") != "ACH" || r01.field(t, "billingName") != "Dana Doe" {
		t.Errorf("ACH answer: %s", r01.Raw)
	}
	wantError(t, e.admin(t, http.MethodPost, "transactions/"+plain.field(t, "uniqueTransId")+"/achReturn", map[string]any{"code": "R01"}),
		http.StatusConflict, "settled")
	e.clock.Advance(14 * time.Hour) // 23:00: settled at 22:00
	if back := e.get(t, r01.field(t, "externalTransactionId")); back.field(t, "achReturnCode") != "" {
		t.Fatalf("returned before the bank's answer: %s", back.Raw)
	}
	e.clock.Advance(24 * time.Hour)
	for _, c := range []struct {
		r    reply
		code string
	}{{r01, "R01"}, {r29, "R29"}} {
		back := e.get(t, c.r.field(t, "externalTransactionId"))
		if back.field(t, "achReturnCode") != c.code || back.field(t, "achReturnReason") == "" || back.field(t, "achReturnDate") != "2026-03-03" {
			t.Errorf("read-back of %s: %s", c.code, back.Raw)
		}
	}
	ret := e.admin(t, http.MethodPost, "transactions/"+plain.field(t, "uniqueTransId")+"/achReturn", map[string]any{"code": "R10"})
	if ret.Status != http.StatusOK {
		t.Fatalf("admin return: %d %s", ret.Status, ret.Raw)
	}
	if back := e.get(t, plain.field(t, "externalTransactionId")); back.field(t, "achReturnCode") != "R10" {
		t.Errorf("read-back after the admin's return: %s", back.Raw)
	}
	wantError(t, e.admin(t, http.MethodPost, "transactions/"+plain.field(t, "uniqueTransId")+"/achReturn", map[string]any{"code": "R01"}),
		http.StatusConflict, "returned")
}

// Tokens: a saved card pays, authorizes and is refunded by uniqueTransId;
// a saved bank account pays by ACH and cannot be authorized.
func TestTokenizedOperations(t *testing.T) {
	e := newEnv(t, nil)
	card := mustOK(t, e.put(t, "tokenize", account(map[string]any{"cardNumber": visa, "cardExpirationDate": expiry,
		"externalTransactionId": uuid.NewString(), "billingName": "Dana Doe"})))
	if card.field(t, "transactionType") != "CreditSaveCard" || card.field(t, "amount") != "0.00" {
		t.Fatalf("tokenize: %s", card.Raw)
	}
	p := mustOK(t, e.put(t, "tokenizedPayment", ref(card.field(t, "uniqueTransId"), map[string]any{"amount": "11.00"})))
	if p.field(t, "transactionType") != "CreditSale" || p.field(t, "maskedAccount") != "************1111" || p.field(t, "billingName") != "Dana Doe" {
		t.Errorf("tokenized payment: %s", p.Raw)
	}
	mustOK(t, e.put(t, "tokenizedAuth", ref(card.field(t, "uniqueTransId"), map[string]any{"amount": "12.00"})))
	mustOK(t, e.put(t, "tokenizedPayment", ref(p.field(t, "uniqueTransId"), map[string]any{"amount": "1.00"})))

	bank := mustOK(t, e.put(t, "ach/tokenize", account(with(ach(bankAcct, ""), map[string]any{"amount": nil}))))
	debit := mustOK(t, e.put(t, "tokenizedPayment", ref(bank.field(t, "uniqueTransId"), map[string]any{"amount": "20.00"})))
	if debit.field(t, "transactionType") != "AchSale" {
		t.Errorf("tokenized bank payment: %s", debit.Raw)
	}
	credit := mustOK(t, e.put(t, "tokenizedRefund", ref(debit.field(t, "uniqueTransId"), map[string]any{"amount": "20.00"})))
	if credit.field(t, "transactionType") != "AchReturn" {
		t.Errorf("tokenized bank refund: %s", credit.Raw)
	}
	wantError(t, e.put(t, "tokenizedAuth", ref(bank.field(t, "uniqueTransId"), map[string]any{"amount": "1.00"})), http.StatusBadRequest, "bank account")
	declined := e.put(t, "sale", data(sale("4000000000000002", "5.00")))
	wantError(t, e.put(t, "tokenizedPayment", ref(declined.field(t, "uniqueTransId"), map[string]any{"amount": "1.00"})), http.StatusBadRequest, "uniqueTransId")
}
