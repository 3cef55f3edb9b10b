package payments

import (
	"strings"
	"time"

	"github.com/payportal/portal/internal/apperr"
	upstream "github.com/payportal/portal/internal/upstream/payments"
)

// The card fields of a form bind straight into the upstream client's card
// types (Echo's binder calls UnmarshalParam with the typed text), so the
// digits never sit in a string field of ours: only the request's own form
// holds them, and the handler clears that once bound (ClearCardFields).

// CardNumberField is a form's card number.
type CardNumberField struct {
	Number upstream.CardNumber
	// Typed reports that something was entered; Problem why it is not a
	// card number.
	Typed   bool
	Problem string
}

// UnmarshalParam reads the typed text into the card number type.
func (f *CardNumberField) UnmarshalParam(typed string) error {
	f.Typed = strings.TrimSpace(typed) != ""
	n, err := upstream.NewCardNumber(typed)
	f.Number, f.Problem = n, ""
	if err != nil {
		f.Number = upstream.CardNumber{}
		f.Problem = cardNumberProblem(typed, err)
	}
	return nil
}

func cardNumberProblem(typed string, err error) string {
	msg := err.Error()
	switch {
	case strings.TrimSpace(typed) == "":
		return "Enter the card number."
	case strings.Contains(msg, "only digits"):
		return "A card number has digits only (spaces are fine)."
	case strings.Contains(msg, "12 to 19"):
		return "A card number has 12 to 19 digits."
	case strings.Contains(msg, "check digit"):
		return "This is not a valid card number: check the digits and re-enter it."
	}
	return "This is not a valid card number."
}

// SecurityCodeField is a form's card security code (optional).
type SecurityCodeField struct {
	Code    upstream.SecurityCode
	Typed   bool
	Problem string
}

// UnmarshalParam reads the typed text into the security code type.
func (f *SecurityCodeField) UnmarshalParam(typed string) error {
	f.Typed = strings.TrimSpace(typed) != ""
	f.Code, f.Problem = upstream.SecurityCode{}, ""
	if !f.Typed {
		return nil
	}
	c, err := upstream.NewSecurityCode(typed)
	if err != nil {
		f.Problem = "A security code has 3 digits (4 on American Express cards)."
		return nil
	}
	f.Code = c
	return nil
}

// BankAccountField is a form's bank account number.
type BankAccountField struct {
	Number  upstream.BankAccountNumber
	Typed   bool
	Problem string
}

// UnmarshalParam reads the typed text into the bank account number type.
func (f *BankAccountField) UnmarshalParam(typed string) error {
	f.Typed = strings.TrimSpace(typed) != ""
	n, err := upstream.NewBankAccountNumber(typed)
	f.Number, f.Problem = n, ""
	if err != nil {
		f.Number = upstream.BankAccountNumber{}
		f.Problem = "Enter the account number: 3 to 17 digits."
		if !f.Typed {
			f.Problem = "Enter the account number."
		}
	}
	return nil
}

// SecretFields are the form fields that hold card or bank account digits: they
// are never echoed back and are wiped from the request once bound.
var SecretFields = []string{"card_number", "security_code", "account_number"}

// Billing fields of the card form.
type billingForm struct {
	BillingName    string `form:"billing_name"`
	BillingAddress string `form:"billing_address"`
	BillingZIP     string `form:"billing_zip"`
}

func (b billingForm) billing() Billing {
	return Billing{Name: strings.TrimSpace(b.BillingName), Address: strings.TrimSpace(b.BillingAddress),
		PostalCode: strings.TrimSpace(b.BillingZIP)}
}

func (b billingForm) validate(errs apperr.FieldErrors) {
	if len([]rune(strings.TrimSpace(b.BillingName))) > 100 {
		errs.Add("billing_name", "Use at most 100 characters.")
	}
	if len([]rune(strings.TrimSpace(b.BillingAddress))) > 100 {
		errs.Add("billing_address", "Use at most 100 characters.")
	}
	if z := strings.TrimSpace(b.BillingZIP); z != "" && !zipPattern(z) {
		errs.Add("billing_zip", "Enter the ZIP or postal code: 3 to 10 letters, digits, spaces or dashes.")
	}
}

// zipRune reports a character a postal code may hold: letters, digits, spaces
// and dashes (codes outside the US have letters).
func zipRune(r rune) bool {
	return r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r == ' ' || r == '-'
}

func zipPattern(z string) bool {
	if len(z) < 3 || len(z) > 10 {
		return false
	}
	for _, r := range z {
		if !zipRune(r) {
			return false
		}
	}
	return true
}

// parseExpiry reads an expiry as MM/YY, MM-YY, MMYY or MM/YYYY, checks the
// card has not expired by now (a card is good through its month's last day)
// and returns it as the API's MM-YY.
func parseExpiry(typed string, now time.Time) (string, string) {
	s := strings.NewReplacer(" ", "", "/", "", "-", "").Replace(strings.TrimSpace(typed))
	if s == "" {
		return "", "Enter the expiry date, such as 08/29."
	}
	if len(s) == 6 && strings.HasPrefix(s[2:], "20") {
		s = s[:2] + s[4:]
	}
	if len(s) != 4 || !digitsOnly(s) || s[:2] < "01" || s[:2] > "12" {
		return "", "Enter the expiry date as month and year, such as 08/29."
	}
	month := int(s[0]-'0')*10 + int(s[1]-'0')
	year := 2000 + int(s[2]-'0')*10 + int(s[3]-'0')
	endOfMonth := time.Date(year, time.Month(month)+1, 1, 0, 0, 0, 0, time.UTC)
	if !now.UTC().Before(endOfMonth) {
		return "", "This card has expired."
	}
	return s[:2] + "-" + s[2:], ""
}

func digitsOnly(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// cardFrom checks the card fields together and returns the client's card.
func cardFrom(number CardNumberField, expiry string, code SecurityCodeField, now time.Time, errs apperr.FieldErrors) upstream.Card {
	if !number.Typed {
		errs.Add("card_number", "Enter the card number.")
	} else if number.Problem != "" {
		errs.Add("card_number", number.Problem)
	}
	exp, problem := parseExpiry(expiry, now)
	if problem != "" {
		errs.Add("expiry", problem)
	}
	if code.Problem != "" {
		errs.Add("security_code", code.Problem)
	} else if code.Typed && !number.Number.IsZero() {
		want := 3
		if number.Number.Brand() == "American Express" {
			want = 4
		}
		if code.Code.Len() != want {
			errs.Add("security_code", "This card's security code has "+map[int]string{3: "3", 4: "4"}[want]+" digits.")
		}
	}
	return upstream.Card{Number: number.Number, Expiry: exp, SecurityCode: code.Code}
}

// cardSummary is how the ledger keeps the card: brand, first six, last four.
func cardSummary(n upstream.CardNumber) Card {
	if n.IsZero() {
		return Card{}
	}
	return Card{Brand: n.Brand(), First6: n.First6(), Last4: n.Last4()}
}
