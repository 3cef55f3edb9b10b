package payments_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// Every rule of the specification and the facts answers 400 with a
// message naming the field, before anything happens.
func TestValidationNamesTheField(t *testing.T) {
	e := newEnv(t, nil)
	base := sale(visa, "10.00")
	achBase := ach(bankAcct, "10.00")
	ref := map[string]any{"uniqueTransId": strings.Repeat("a", 32) + "-" + strings.Repeat("b", 32),
		"externalTransactionId": uuid.NewString()}
	cases := []struct {
		name, op string
		body     any
		field    string
	}{
		{"no wrapper", "sale", base, "transactionData"},
		{"wrong wrapper", "tokenize", data(base), "transactionData"},
		{"wrapper not an object", "sale", map[string]any{"transactionData": "x"}, "transactionData"},
		{"amount missing", "sale", data(with(base, map[string]any{"amount": nil})), "transactionData.amount"},
		{"amount one decimal", "sale", data(with(base, map[string]any{"amount": "10.0"})), "transactionData.amount"},
		{"amount a number", "sale", data(with(base, map[string]any{"amount": 10})), "transactionData.amount"},
		{"amount zero", "sale", data(with(base, map[string]any{"amount": "0.00"})), "transactionData.amount"},
		{"amount too large", "sale", data(with(base, map[string]any{"amount": "100000.00"})), "transactionData.amount"},
		{"tip malformed", "sale", data(with(base, map[string]any{"tipAmount": "1"})), "transactionData.tipAmount"},
		{"tax over amount", "sale", data(with(base, map[string]any{"taxAmount": "11.00"})), "transactionData.taxAmount"},
		{"card missing", "sale", data(with(base, map[string]any{"cardNumber": nil})), "transactionData.cardNumber"},
		{"card with spaces", "sale", data(with(base, map[string]any{"cardNumber": "4111 1111 1111 1111"})), "transactionData.cardNumber"},
		{"card fails Luhn", "sale", data(with(base, map[string]any{"cardNumber": "4111111111111112"})), "transactionData.cardNumber"},
		{"live-looking card", "sale", data(with(base, map[string]any{"cardNumber": "4929000000006"})), "transactionData.cardNumber"},
		{"expiry shape", "sale", data(with(base, map[string]any{"cardExpirationDate": "12/30"})), "transactionData.cardExpirationDate"},
		{"expiry month 13", "sale", data(with(base, map[string]any{"cardExpirationDate": "13-30"})), "transactionData.cardExpirationDate"},
		{"security code length", "sale", data(with(base, map[string]any{"cardSecurityCode": "12"})), "transactionData.cardSecurityCode"},
		{"amex needs four", "sale", data(with(base, map[string]any{"cardNumber": amex, "cardSecurityCode": "123"})), "transactionData.cardSecurityCode"},
		{"external id not a UUID", "sale", data(with(base, map[string]any{"externalTransactionId": "abc"})), "transactionData.externalTransactionId"},
		{"external id UUID v1", "sale", data(with(base, map[string]any{"externalTransactionId": "6ba7b810-9dad-11d1-80b4-00c04fd430c8"})), "transactionData.externalTransactionId"},
		{"reference too short", "sale", data(with(base, map[string]any{"transactionReference": "ab"})), "transactionData.transactionReference"},
		{"postal code", "sale", data(with(base, map[string]any{"billingPostalCode": "!"})), "transactionData.billingPostalCode"},
		{"unknown field", "sale", data(with(base, map[string]any{"accountNumber": "123"})), "transactionData.accountNumber"},
		{"tip on refund", "refund", data(with(base, map[string]any{"tipAmount": "1.00"})), "transactionData.tipAmount"},
		{"unknown top-level", "sale", map[string]any{"transactionData": base, "extra": 1}, "extra"},
		{"level2 without purchaseId", "sale", data(with(base, map[string]any{"level2": map[string]any{"purchaseOrderNumber": "PO"}})), "transactionData.level2.purchaseId"},
		{"level2 without order number", "sale", data(with(base, map[string]any{"level2": map[string]any{"purchaseId": "P"}})), "transactionData.level2.purchaseOrderNumber"},
		{"level2 tax exempt not boolean", "sale", data(with(base, map[string]any{"level2": map[string]any{"purchaseId": "P", "purchaseOrderNumber": "PO", "isTaxExempt": "yes"}})), "transactionData.level2.isTaxExempt"},
		{"account type", "ach/sale", data(with(achBase, map[string]any{"accountType": "Business"})), "transactionData.accountType"},
		{"account number letters", "ach/sale", data(with(achBase, map[string]any{"accountNumber": "12a45"})), "transactionData.accountNumber"},
		{"account number too long", "ach/sale", data(with(achBase, map[string]any{"accountNumber": strings.Repeat("1", 18)})), "transactionData.accountNumber"},
		{"routing checksum", "ach/sale", data(with(achBase, map[string]any{"routingNumber": "011401534"})), "transactionData.routingNumber"},
		{"holder missing", "ach/sale", data(with(achBase, map[string]any{"accountHolderName": nil})), "transactionData.accountHolderName"},
		{"ach tokenize wrapper", "ach/tokenize", data(with(achBase, map[string]any{"amount": nil})), "transactionData"},
		{"void without unique id", "void", data(with(ref, map[string]any{"uniqueTransId": nil})), "transactionData.uniqueTransId"},
		{"void unique id shape", "void", data(with(ref, map[string]any{"uniqueTransId": "123"})), "transactionData.uniqueTransId"},
		{"void with reference", "void", data(with(ref, map[string]any{"transactionReference": "INV-1"})), "transactionData.transactionReference"},
		{"adjustment type", "adjust", data(with(ref, map[string]any{"adjustmentType": "Tip"})), "transactionData.adjustmentType"},
		{"force amount", "tokenizedForce", data(with(ref, map[string]any{"amount": "5"})), "transactionData.amount"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.put(t, c.op, c.body)
			wantError(t, r, http.StatusBadRequest, c.field)
			if got, _ := r.Body["field"].(string); got != c.field {
				t.Errorf("field %q, want %q", got, c.field)
			}
		})
	}
	txns, _ := e.area.Transactions("", 0)
	if len(txns) != 0 {
		t.Fatalf("refused requests left %d transactions", len(txns))
	}
}

// Refusals never repeat a card number they were sent.
func TestRefusalsDoNotEchoCardNumbers(t *testing.T) {
	e := newEnv(t, nil)
	for _, card := range []string{"4929000000006", "4111111111111112", "4111 1111 1111 1111"} {
		r := e.put(t, "sale", data(with(sale(card, "1.00"), nil)))
		if r.Status != http.StatusBadRequest || strings.Contains(string(r.Raw), strings.ReplaceAll(card, " ", "")[:12]) {
			t.Fatalf("%d %s", r.Status, r.Raw)
		}
	}
}

// Headers: appVersion and idempotency-key follow their published forms;
// the body must be JSON sent as JSON.
func TestHeadersAndBody(t *testing.T) {
	e := newEnv(t, nil)
	wantError(t, e.put(t, "sale", data(sale(visa, "1.00")), "appVersion", "portal v1.2+dirty"), http.StatusBadRequest, "appVersion")
	mustOK(t, e.put(t, "sale", data(sale(visa, "1.00")), "appVersion", "portal 1.2.3-dev_4"))
	wantError(t, e.put(t, "sale", data(sale(visa, "1.00")), "idempotency-key", "not-a-uuid"), http.StatusBadRequest, "idempotency-key")
	wantError(t, e.put(t, "sale", "{not json"), http.StatusBadRequest, "JSON")
	wantError(t, e.put(t, "sale", "[]"), http.StatusBadRequest, "object")
	// One limit for every area's bodies: 1 MiB, answered in this area's shape.
	padded := `{"transactionData": {"pad": "` + strings.Repeat("x", 100<<10) + `"}}`
	if r := e.put(t, "sale", padded); r.Status == http.StatusRequestEntityTooLarge {
		t.Errorf("a 100 KiB body was refused as too large: %s", r.Raw)
	}
	wantError(t, e.put(t, "sale", `{"pad": "`+strings.Repeat("x", 1<<20)+`"}`), http.StatusRequestEntityTooLarge, "larger than 1048576 bytes")
	req := e.call(t, http.MethodPut, "sale", e.acct, "{}", "Content-Type", "text/plain")
	wantError(t, req, http.StatusUnsupportedMediaType, "Content-Type")
}

// Credentials: a token per account; a wrong method gets 405 in JSON.
func TestCredentialsAndMethods(t *testing.T) {
	e := newEnv(t, nil)
	other := e.admin(t, http.MethodPost, "accounts", map[string]any{"name": "Other Shop"})
	if other.Status != http.StatusCreated {
		t.Fatalf("create account: %d %s", other.Status, other.Raw)
	}
	otherToken, _ := other.Body["token"].(string)
	body := data(sale(visa, "1.00"))

	noToken := e.acct
	noToken.Token = ""
	r := e.call(t, http.MethodPut, "sale", noToken, body)
	wantError(t, r, http.StatusUnauthorized, "Bearer")
	if r.Header.Get("WWW-Authenticate") == "" {
		t.Error("401 without WWW-Authenticate")
	}
	forged := e.acct
	forged.Token = e.acct.Token[:len(e.acct.Token)-4] + "AAAA"
	wantError(t, e.call(t, http.MethodPut, "sale", forged, body), http.StatusUnauthorized, "token")
	crossed := e.acct
	crossed.Token = otherToken
	wantError(t, e.call(t, http.MethodPut, "sale", crossed, body), http.StatusForbidden, "this account")

	for _, m := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		r := e.call(t, m, "sale", e.acct, body)
		wantError(t, r, http.StatusMethodNotAllowed, m)
		if r.Header.Get("Allow") != http.MethodPut {
			t.Errorf("%s: Allow %q", m, r.Header.Get("Allow"))
		}
	}
	r = e.call(t, http.MethodPut, uuid.NewString(), e.acct, body)
	wantError(t, r, http.StatusMethodNotAllowed, "PUT")
	if r.Header.Get("Allow") != http.MethodGet {
		t.Errorf("read-back Allow %q", r.Header.Get("Allow"))
	}
	wantError(t, e.call(t, http.MethodPost, "ach/sale", e.acct, body), http.StatusMethodNotAllowed, "POST")
}
