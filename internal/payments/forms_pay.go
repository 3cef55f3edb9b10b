package payments

import (
	"net/mail"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/httpx"
	upstream "github.com/payportal/portal/internal/upstream/payments"
)

// CardPaymentForm is the virtual terminal's keyed card form, bound from the
// request. Every value but the card number and security code is shown again
// when the form comes back with a problem.
type CardPaymentForm struct {
	FormToken string `form:"form_token"`
	// Action is "sale" (charge now) or "authorization" (hold, capture later).
	Action       string            `form:"action"`
	Amount       string            `form:"amount"`
	Tip          string            `form:"tip"`
	Tax          string            `form:"tax"`
	CardNumber   CardNumberField   `form:"card_number"`
	Expiry       string            `form:"expiry"`
	SecurityCode SecurityCodeField `form:"security_code"`
	BillingName  string            `form:"billing_name"`
	BillingAddr  string            `form:"billing_address"`
	BillingZIP   string            `form:"billing_zip"`
	Reference    string            `form:"reference"`
	// Level 2 (commercial card) data, sent when Level2 is ticked.
	Level2             httpx.Checkbox `form:"level2"`
	TaxExempt          httpx.Checkbox `form:"tax_exempt"`
	PurchaseID         string         `form:"purchase_id"`
	PurchaseOrder      string         `form:"purchase_order"`
	CustomerTaxID      string         `form:"customer_tax_id"`
	DestinationZIP     string         `form:"destination_zip"`
	ProductDescription string         `form:"product_description"`
	CustomerID         string         `form:"customer_id"`
	ReceiptEmail       string         `form:"receipt_email"`
	// ConfirmDuplicate is the explicit "charge again" after the duplicate
	// warning.
	ConfirmDuplicate httpx.Checkbox `form:"confirm_duplicate"`
}

func (f *CardPaymentForm) billing() billingForm {
	return billingForm{BillingName: f.BillingName, BillingAddress: f.BillingAddr, BillingZIP: f.BillingZIP}
}

// cardPayment is a validated card form.
type cardPayment struct {
	kind Kind
	amounts
	card                   upstream.Card
	billing                Billing
	level2                 *upstream.Level2
	reference, receiptMail string
	customerID             *uuid.UUID
}

// amounts are a payment's amount, tip and tax, in cents.
type amounts struct{ amount, tip, tax int64 }

// readAmounts reads the amount a form asks for and its optional tip and
// tax, adding each problem at its field.
func readAmounts(amount, tip, tax string, errs apperr.FieldErrors) amounts {
	var a amounts
	var msg string
	if a.amount, msg = ParseAmount(amount); msg != "" {
		errs.Add("amount", msg)
	}
	if a.tip, msg = parseOptionalAmount(tip); msg != "" {
		errs.Add("tip", msg)
	}
	if a.tax, msg = parseOptionalAmount(tax); msg != "" {
		errs.Add("tax", msg)
	}
	return a
}

// validate checks the form and returns the payment, or the field messages.
func (f *CardPaymentForm) validate(now time.Time) (*cardPayment, error) {
	errs := apperr.FieldErrors{}
	p := &cardPayment{kind: KindSale}
	switch f.Action {
	case "", "sale":
	case "authorization":
		p.kind = KindAuthorization
	default:
		errs.Add("action", "Choose a sale or an authorization.")
	}
	p.amounts = readAmounts(f.Amount, f.Tip, f.Tax, errs)
	if p.tax > p.amount && p.amount > 0 {
		errs.Add("tax", "The tax is part of the amount, so it cannot be more than the amount.")
	}
	if p.amount+p.tip > MaxAmountCents {
		errs.Add("tip", "The amount and tip together can be at most "+FormatCents(MaxAmountCents)+".")
	}
	p.card = cardFrom(f.CardNumber, f.Expiry, f.SecurityCode, now, errs)
	b := f.billing()
	b.validate(errs)
	p.billing = b.billing()
	p.reference = checkReference(f.Reference, errs)
	if f.Level2 {
		p.level2 = f.level2(errs)
	}
	p.receiptMail = checkEmail("receipt_email", f.ReceiptEmail, errs)
	p.customerID = checkCustomerID(f.CustomerID, errs)
	if len(errs) > 0 {
		return nil, errs.Err()
	}
	return p, nil
}

func (f *CardPaymentForm) level2(errs apperr.FieldErrors) *upstream.Level2 {
	l := &upstream.Level2{IsTaxExempt: bool(f.TaxExempt), PurchaseID: strings.TrimSpace(f.PurchaseID),
		PurchaseOrderNumber: strings.TrimSpace(f.PurchaseOrder), CustomerTaxID: strings.TrimSpace(f.CustomerTaxID),
		DestinationPostalCode: strings.TrimSpace(f.DestinationZIP), ProductDescription: strings.TrimSpace(f.ProductDescription)}
	if l.PurchaseID == "" {
		errs.Add("purchase_id", "Level 2 data needs the purchase ID.")
	}
	if l.PurchaseOrderNumber == "" {
		errs.Add("purchase_order", "Level 2 data needs the purchase order number.")
	}
	for field, v := range map[string]string{"purchase_id": l.PurchaseID, "purchase_order": l.PurchaseOrderNumber,
		"customer_tax_id": l.CustomerTaxID, "destination_zip": l.DestinationPostalCode, "product_description": l.ProductDescription} {
		if len([]rune(v)) > 100 {
			errs.Add(field, "Use at most 100 characters.")
		}
	}
	return l
}

// checkReference allows an empty reference or 3 to 100 characters (the
// processor's rule).
func checkReference(typed string, errs apperr.FieldErrors) string {
	r := strings.TrimSpace(typed)
	switch n := len([]rune(r)); {
	case n == 0:
	case n < 3:
		errs.Add("reference", "A reference has at least 3 characters, or leave it empty.")
	case n > 100:
		errs.Add("reference", "Use at most 100 characters.")
	}
	return r
}

func checkEmail(field, typed string, errs apperr.FieldErrors) string {
	e := strings.TrimSpace(typed)
	if e == "" {
		return ""
	}
	a, err := mail.ParseAddress(e)
	if err != nil || a.Address != e || !strings.Contains(e, ".") {
		errs.Add(field, "Enter an e-mail address such as name@example.com.")
		return ""
	}
	return e
}

func checkCustomerID(typed string, errs apperr.FieldErrors) *uuid.UUID {
	if strings.TrimSpace(typed) == "" {
		return nil
	}
	id, err := uuid.Parse(strings.TrimSpace(typed))
	if err != nil {
		errs.Add("customer_id", "Choose a customer from the list.")
		return nil
	}
	return &id
}

// ACHPaymentForm is the virtual terminal's bank (ACH) debit form.
type ACHPaymentForm struct {
	FormToken     string           `form:"form_token"`
	Amount        string           `form:"amount"`
	HolderName    string           `form:"holder_name"`
	RoutingNumber string           `form:"routing_number"`
	AccountNumber BankAccountField `form:"account_number"`
	AccountType   string           `form:"account_type"`
	CheckNumber   string           `form:"check_number"`
	BillingAddr   string           `form:"billing_address"`
	BillingZIP    string           `form:"billing_zip"`
	Reference     string           `form:"reference"`
	CustomerID    string           `form:"customer_id"`
	ReceiptEmail  string           `form:"receipt_email"`
	// The customer's authorization of the debit (Nacha): how it was given,
	// and that it was.
	AuthorizedHow string         `form:"authorized_how"`
	Authorized    httpx.Checkbox `form:"authorized"`
}

// achPayment is a validated ACH form.
type achPayment struct {
	amount                 int64
	account                upstream.BankAccount
	checkNumber            string
	billing                Billing
	reference, receiptMail string
	customerID             *uuid.UUID
	how                    string
}

// AuthorizationWays are how a customer may authorize an ACH debit, by the
// Nacha entry class they imply.
var AuthorizationWays = []struct{ Value, Label string }{
	{"written", "In writing (signed form)"},
	{"phone", "By phone (recorded or confirmed in writing)"},
	{"online", "Online (the customer accepted the terms)"},
}

func (f *ACHPaymentForm) validate() (*achPayment, error) {
	errs := apperr.FieldErrors{}
	p := &achPayment{}
	var msg string
	if p.amount, msg = ParseAmount(f.Amount); msg != "" {
		errs.Add("amount", msg)
	}
	holder := strings.TrimSpace(f.HolderName)
	switch n := len([]rune(holder)); {
	case n == 0:
		errs.Add("holder_name", "Enter the account holder's name.")
	case n > 100:
		errs.Add("holder_name", "Use at most 100 characters.")
	}
	routing := strings.TrimSpace(f.RoutingNumber)
	switch {
	case routing == "":
		errs.Add("routing_number", "Enter the routing number.")
	case len(routing) != 9 || !digitsOnly(routing):
		errs.Add("routing_number", "A routing number has 9 digits.")
	case !upstream.ValidRoutingNumber(routing):
		errs.Add("routing_number", "This is not a valid routing number: its check digit does not match. Check the digits.")
	}
	if f.AccountNumber.Problem != "" {
		errs.Add("account_number", f.AccountNumber.Problem)
	}
	typ := upstream.Checking
	switch f.AccountType {
	case "", "Checking":
	case "Savings":
		typ = upstream.Savings
	default:
		errs.Add("account_type", "Choose checking or savings.")
	}
	p.account = upstream.BankAccount{HolderName: holder, Number: f.AccountNumber.Number, RoutingNumber: routing, Type: typ}
	p.checkNumber = strings.TrimSpace(f.CheckNumber)
	if p.checkNumber != "" && (!digitsOnly(p.checkNumber) || len(p.checkNumber) > 15) {
		errs.Add("check_number", "A check number has up to 15 digits.")
	}
	b := billingForm{BillingAddress: f.BillingAddr, BillingZIP: f.BillingZIP}
	b.validate(errs)
	p.billing = b.billing()
	p.billing.Name = holder
	p.reference = checkReference(f.Reference, errs)
	p.receiptMail = checkEmail("receipt_email", f.ReceiptEmail, errs)
	p.customerID = checkCustomerID(f.CustomerID, errs)
	p.how = checkAuthorization(f.AuthorizedHow, bool(f.Authorized), errs)
	if len(errs) > 0 {
		return nil, errs.Err()
	}
	return p, nil
}

func checkAuthorization(how string, given bool, errs apperr.FieldErrors) string {
	known := false
	for _, w := range AuthorizationWays {
		known = known || w.Value == how
	}
	if !known {
		errs.Add("authorized_how", "Say how the customer authorized this debit.")
	}
	if !given {
		errs.Add("authorized", "The customer must authorize the debit before it is sent (Nacha rules).")
	}
	return how
}
