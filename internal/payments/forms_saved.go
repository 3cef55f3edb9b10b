package payments

import (
	"time"

	"github.com/payportal/portal/internal/apperr"
	upstream "github.com/payportal/portal/internal/upstream/payments"
)

// methodToSave is a valid SaveMethodForm: the card or bank account sent to the
// processor, what the ledger shows of it, and how the customer consented.
type methodToSave struct {
	source     Source
	card       upstream.Card
	bank       upstream.BankAccount
	summary    Card
	billing    Billing
	consentHow string
}

// validate checks the customer's consent (never ticked for them) and the card or
// bank account, every problem at its field.
func (f *SaveMethodForm) validate(now time.Time) (methodToSave, error) {
	errs := apperr.FieldErrors{}
	var p methodToSave
	if !f.Consent {
		errs.Add("consent", "The customer's consent is needed to keep a payment method on file.")
	}
	if p.consentHow = consentWay(f.ConsentHow); p.consentHow == "" {
		errs.Add("consent_how", "Say how the customer gave their consent.")
	}
	switch f.Method {
	case "card":
		f.card(now, &p, errs)
	case "bank_account":
		f.bankAccount(&p, errs)
	default:
		errs.Add("method", "Choose a card or a bank account.")
	}
	return p, errs.Err()
}

// consentWay returns typed if it is one of ConsentWays, else "".
func consentWay(typed string) string {
	for _, w := range ConsentWays {
		if w.Value == typed {
			return w.Value
		}
	}
	return ""
}

// card reads the card to save and its billing details.
func (f *SaveMethodForm) card(now time.Time, p *methodToSave, errs apperr.FieldErrors) {
	p.card = cardFrom(f.CardNumber, f.Expiry, f.SecurityCode, now, errs)
	b := billingForm{BillingName: f.BillingName, BillingAddress: f.BillingAddr, BillingZIP: f.BillingZIP}
	b.validate(errs)
	p.source, p.summary, p.billing = SourceCard, cardSummary(p.card.Number), b.billing()
}

// bankAccount reads the bank account to save by the rules of an ACH debit's form.
func (f *SaveMethodForm) bankAccount(p *methodToSave, errs apperr.FieldErrors) {
	debit, err := (&ACHPaymentForm{Amount: "1.00", HolderName: f.HolderName, RoutingNumber: f.RoutingNumber,
		AccountNumber: f.AccountNumber, AccountType: f.AccountType, AuthorizedHow: "written", Authorized: true}).validate()
	if fields, ok := apperr.FieldsOf(err); ok {
		for k, v := range fields {
			errs.Add(k, v)
		}
		return
	}
	if debit == nil {
		return
	}
	p.bank = debit.account
	p.source, p.billing = SourceACH, Billing{Name: p.bank.HolderName}
	p.summary = Card{Brand: string(p.bank.Type) + " account", Last4: p.bank.Number.Last4(), AccountType: string(p.bank.Type)}
}

// savedPayment is a valid SavedPaymentForm.
type savedPayment struct {
	kind   Kind
	source Source
	amounts
	reference, receipt string
	authorizedHow      string // a bank account's debit: how the customer authorized it
}

// validate checks the amounts, the reference and the receipt's address, and that
// a saved bank account (sm, nil when the form named none) is debited at once, with
// the customer's authorization: no authorization, tip or tax.
func (f *SavedPaymentForm) validate(sm *SavedMethod, errs apperr.FieldErrors) savedPayment {
	p := savedPayment{kind: KindSale, source: SourceCard}
	if f.Action == "authorization" {
		p.kind = KindAuthorization
	}
	p.amounts = readAmounts(f.Amount, f.Tip, f.Tax, errs)
	p.reference = checkReference(f.Reference, errs)
	p.receipt = checkEmail("receipt_email", f.ReceiptEmail, errs)
	if sm != nil && sm.IsBank() {
		p.source = SourceACH
		if p.kind == KindAuthorization || p.tip > 0 || p.tax > 0 {
			errs.Add("action", "A bank account is debited at once: no authorization, tip or tax.")
		}
		p.authorizedHow = checkAuthorization(f.AuthorizedHow, bool(f.Authorized), errs)
	}
	return p
}
