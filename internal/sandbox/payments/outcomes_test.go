package payments_test

import (
	"bytes"
	"net/http"
	"os"
	"regexp"
	"testing"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/sandbox/payments"
)

// published are the fields every answer carries, all strings.
var published = []string{"externalTransactionId", "transactionType", "resultStatus", "resultMessage", "uniqueTransId",
	"transactionReference", "approvalNumberResult", "amount", "amountBalance", "amountProcessed", "amountTaxed",
	"amountTipped", "billingName", "maskedAccount", "accountCardType", "accountExpiryDate", "accountEntryMethod",
	"avsResponseCode", "avsResponseText", "cvvResponseCode", "cvvResponseText", "batchNumber", "cashier",
	"isPartialApproval"}

var uniqueIDShape = regexp.MustCompile(`^[0-9a-f]{32}-[0-9a-f]{32}$`)

// A sale's answer carries every published field as a string, echoes what
// was sent and masks the card.
func TestSaleAnswer(t *testing.T) {
	e := newEnv(t, nil)
	body := with(sale(amex, "10.00"), map[string]any{"tipAmount": "1.50", "taxAmount": "0.80", "cardSecurityCode": "1234",
		"billingName": "Dana Doe", "billingAddress": "1 Main St", "billingPostalCode": "98101", "cashierId": "c-7",
		"transactionReference": "INV-1", "origin": "vendor client field",
		"level2": map[string]any{"purchaseId": "P-1", "purchaseOrderNumber": "PO-1", "isTaxExempt": true}})
	r := mustOK(t, e.put(t, "sale", data(body)))
	tr := r.txn(t)
	for _, f := range published {
		if _, ok := tr[f].(string); !ok {
			t.Errorf("%s is %T, want a string", f, tr[f])
		}
	}
	want := map[string]string{"externalTransactionId": body["externalTransactionId"].(string), "transactionType": "CreditSale",
		"resultMessage": "Approved", "amount": "10.00", "amountTipped": "1.50", "amountTaxed": "0.80",
		"amountProcessed": "11.50", "amountBalance": "0.00", "billingName": "Dana Doe", "maskedAccount": "***********0005",
		"accountCardType": "AX", "accountExpiryDate": "1230", "accountEntryMethod": "Keyed", "avsResponseCode": "Y",
		"cvvResponseCode": "M", "batchNumber": "1", "cashier": "c-7", "transactionReference": "INV-1", "isPartialApproval": "false"}
	for k, v := range want {
		if tr[k] != v {
			t.Errorf("%s = %v, want %q", k, tr[k], v)
		}
	}
	if !uniqueIDShape.MatchString(r.field(t, "uniqueTransId")) || len(r.field(t, "approvalNumberResult")) != 6 {
		t.Errorf("ids: %s", r.Raw)
	}
	if l2, _ := tr["level2"].(map[string]any); l2["purchaseOrderNumber"] != "PO-1" || l2["isTaxExempt"] != true {
		t.Errorf("level2 not echoed: %v", tr["level2"])
	}
}

// Test cards and test amounts drive the outcome, like the big processors'
// test-card pages; a decline is a 200 with resultStatus "false".
func TestTestCardsDriveOutcomes(t *testing.T) {
	e := newEnv(t, nil)
	zip := map[string]any{"billingPostalCode": "98101", "cardSecurityCode": "123"}
	cases := []struct {
		name, card, amount, status, message, partial, avs, cvv, processed string
	}{
		{"approved visa", visa, "10.00", "true", "Approved", "false", "Z", "M", "10.00"},
		{"approved mastercard", "5555555555554444", "10.00", "true", "Approved", "false", "Z", "M", "10.00"},
		{"declined", "4000000000000002", "10.00", "false", "Declined", "false", "Z", "M", "0.00"},
		{"declined mastercard", "5105105105105100", "10.00", "false", "Declined", "false", "Z", "M", "0.00"},
		{"insufficient funds", "4000000000009995", "10.00", "false", "Insufficient Funds", "false", "Z", "M", "0.00"},
		{"partial approval", "4000000000000051", "10.00", "true", "Approved", "true", "Z", "M", "5.00"},
		{"avs mismatch approves", "4000000000000010", "10.00", "true", "Approved", "false", "N", "M", "10.00"},
		{"cvv mismatch declines", "4000000000000101", "10.00", "false", "CVV2 Mismatch", "false", "Z", "N", "0.00"},
		{"amount 2000.00 declines", visa, "2000.00", "false", "Declined", "false", "Z", "M", "0.00"},
		{"amount 2001.00 insufficient", visa, "2001.00", "false", "Insufficient Funds", "false", "Z", "M", "0.00"},
		{"amount 2002.00 partial", visa, "2002.00", "true", "Approved", "true", "Z", "M", "1001.00"},
		{"amount 2003.00 avs", visa, "2003.00", "true", "Approved", "false", "N", "M", "2003.00"},
		{"amount 2010.00 cvv", visa, "2010.00", "false", "CVV2 Mismatch", "false", "Z", "N", "0.00"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.put(t, "sale", data(with(sale(c.card, c.amount), zip)))
			if r.Status != http.StatusOK {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			got := []string{r.field(t, "resultStatus"), r.field(t, "resultMessage"), r.field(t, "isPartialApproval"),
				r.field(t, "avsResponseCode"), r.field(t, "cvvResponseCode"), r.field(t, "amountProcessed")}
			want := []string{c.status, c.message, c.partial, c.avs, c.cvv, c.processed}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("got %v, want %v: %s", got, want, r.Raw)
				}
			}
			if (c.status == "true") != (r.field(t, "approvalNumberResult") != "") {
				t.Errorf("approval number %q with status %s", r.field(t, "approvalNumberResult"), c.status)
			}
		})
	}
	// The CVV test card approves when no code is sent: nothing to mismatch.
	mustOK(t, e.put(t, "sale", data(sale("4000000000000101", "10.00"))))
}

// An expired card is declined, not refused: the month on the card is good
// to its last day.
func TestExpiredCardDeclined(t *testing.T) {
	e := newEnv(t, nil)
	r := e.put(t, "sale", data(with(sale(visa, "5.00"), map[string]any{"cardExpirationDate": pastMonth})))
	if r.Status != http.StatusOK || r.field(t, "resultStatus") != "false" || r.field(t, "resultMessage") != "Expired Card" {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	mustOK(t, e.put(t, "sale", data(with(sale(visa, "5.00"), map[string]any{"cardExpirationDate": "03-26"}))))
}

// The processor-timeout card answers 504 after the configured delay and
// leaves nothing behind: read-back finds nothing, the key is free again.
func TestProcessorTimeout(t *testing.T) {
	e := newEnv(t, nil)
	for _, body := range []map[string]any{sale("4000000000000119", "10.00"), sale(visa, "3000.00")} {
		key := uuid.NewString()
		r := e.put(t, "sale", data(body), "idempotency-key", key)
		wantError(t, r, http.StatusGatewayTimeout, "processor")
		wantError(t, e.get(t, body["externalTransactionId"].(string)), http.StatusNotFound, "externalTransactionId")
		wantError(t, e.put(t, "sale", data(body), "idempotency-key", key), http.StatusGatewayTimeout, "processor")
	}
}

// The vault keeps no card number: after every kind of card and bank
// operation, the state file holds neither the numbers nor the code.
func TestStateHoldsNoCardNumber(t *testing.T) {
	e := newEnv(t, nil)
	card := "5555555555554444"
	s := mustOK(t, e.put(t, "sale", data(with(sale(card, "20.00"), map[string]any{"cardSecurityCode": "987"}))))
	mustOK(t, e.put(t, "authorization", data(sale(card, "20.00"))))
	mustOK(t, e.put(t, "refund", data(sale(card, "2.00"))))
	tok := mustOK(t, e.put(t, "tokenize", account(with(sale(card, ""), map[string]any{"amount": nil}))))
	mustOK(t, e.put(t, "tokenizedPayment", data(map[string]any{"uniqueTransId": tok.field(t, "uniqueTransId"), "amount": "3.00",
		"externalTransactionId": uuid.NewString()})))
	mustOK(t, e.put(t, "ach/sale", data(ach("987654321012", "5.00"))))
	mustOK(t, e.put(t, "sale", data(sale(card, "1.00")), "idempotency-key", uuid.NewString()))
	if s.field(t, "maskedAccount") != "************4444" {
		t.Errorf("masked %q", s.field(t, "maskedAccount"))
	}
	raw, err := os.ReadFile(e.store.DB.Path())
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{card, "555555555555", "987654321012"} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("the state file holds %q", secret)
		}
	}
	// The test cards are documented; the vault's entries are keyed by a
	// fingerprint, so the same card on the same account is one token.
	if len(payments.TestCards) < 10 {
		t.Fatalf("%d test cards", len(payments.TestCards))
	}
}
