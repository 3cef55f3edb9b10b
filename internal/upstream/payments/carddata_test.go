package payments_test

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/payportal/portal/internal/upstream/payments"
)

// holder is what a careless caller might print: card data in exported
// and unexported fields, by value and by pointer.
type holder struct {
	Number  payments.CardNumber
	Code    payments.SecurityCode
	Account payments.BankAccountNumber
	number  payments.CardNumber
	code    payments.SecurityCode
	account *payments.BankAccountNumber
	Card    payments.Card
	Payment payments.CardPayment
}

// Nothing that prints or encodes card data can show more than the first
// six and last four digits of a card, nothing of a security code and the
// last four of a bank account.
func TestCardDataNeverPrints(t *testing.T) {
	const pan, code, acct = "4111111111111111", "9876", "000123456789"
	n, err := payments.NewCardNumber("4111 1111-1111 1111")
	if err != nil {
		t.Fatal(err)
	}
	c, _ := payments.NewSecurityCode(code)
	a, _ := payments.NewBankAccountNumber(acct)
	h := holder{Number: n, Code: c, Account: a, number: n, code: c, account: &a,
		Card: payments.Card{Number: n, SecurityCode: c, Expiry: "12-30"}}
	h.Payment = payments.CardPayment{Card: h.Card, Amount: "1.00"}
	var outs []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%T %v", "%100v", "%-30s"} {
		for _, v := range []any{n, c, a, &n, &c, &a, h, &h, h.Card, h.Payment} {
			outs = append(outs, fmt.Sprintf(verb, v))
		}
	}
	for _, v := range []any{n, c, a, h, h.Payment} {
		j, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		x, _ := xml.Marshal(v)
		outs = append(outs, string(j), string(x), fmt.Sprint(v), fmt.Sprintln(v))
	}
	var logs strings.Builder
	for _, hd := range []slog.Handler{slog.NewTextHandler(&logs, nil), slog.NewJSONHandler(&logs, nil)} {
		slog.New(hd).Info("card", "n", n, "c", c, "a", a, "h", h, "any", any(h.Payment))
	}
	outs = append(outs, logs.String(), errors.New(fmt.Sprint(h)).Error())
	func() {
		defer func() { outs = append(outs, fmt.Sprint(recover())) }()
		panic(n)
	}()
	for _, out := range outs {
		for _, secret := range []string{pan, "1111111111", code, acct, "0001234"} {
			if strings.Contains(out, secret) {
				t.Fatalf("%q shows %q", out, secret)
			}
		}
	}
	if n.String() != "411111******1111" || n.Last4() != "1111" || n.First6() != "411111" || n.Brand() != "Visa" {
		t.Errorf("masked card: %s %s %s %s", n, n.Last4(), n.First6(), n.Brand())
	}
	if c.String() != "***" || a.String() != "****6789" {
		t.Errorf("masked code %q, account %q", c, a)
	}
	if !strings.Contains(logs.String(), "411111******1111") {
		t.Errorf("logs lack the masked number:\n%s", logs.String())
	}
}

func TestCardDataChecks(t *testing.T) {
	for _, bad := range []string{"", "4111111111111112", "41111111111", "4111x11111111111", strings.Repeat("4", 20)} {
		if _, err := payments.NewCardNumber(bad); !errors.Is(err, payments.ErrInvalidCardData) || strings.Contains(err.Error(), "41111") {
			t.Errorf("NewCardNumber(%q): %v", bad, err)
		}
	}
	for _, bad := range []string{"", "12", "12345", "12a"} {
		if _, err := payments.NewSecurityCode(bad); err == nil {
			t.Errorf("NewSecurityCode(%q) accepted", bad)
		}
	}
	for _, bad := range []string{"12", "1234567890123456789", "12a4"} {
		if _, err := payments.NewBankAccountNumber(bad); err == nil {
			t.Errorf("NewBankAccountNumber(%q) accepted", bad)
		}
	}
	for number, brand := range map[string]string{"378282246310005": "American Express", "5555555555554444": "Mastercard",
		"2223003122003222": "Mastercard", "6011111111111117": "Discover", "3566002020360505": "JCB", "36227206271667": "Diners Club"} {
		if got := payments.BrandOf(number); got != brand {
			t.Errorf("BrandOf(%s) = %s, want %s", number, got, brand)
		}
	}
	if !payments.ValidRoutingNumber(routing) || payments.ValidRoutingNumber("011401534") {
		t.Error("routing checksum")
	}
	if c := payments.Cents(123456); c != "1234.56" || !c.Valid() {
		t.Errorf("Cents: %s", c)
	}
	if v, err := payments.Amount("0.05").Cents(); err != nil || v != 5 {
		t.Errorf("Amount.Cents: %d %v", v, err)
	}
}
