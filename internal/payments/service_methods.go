package payments

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/httpx"
	"github.com/payportal/portal/internal/models"
	upstream "github.com/payportal/portal/internal/upstream/payments"
)

// SaveMethodForm saves a customer's card or bank account with the processor
// (tokenize), with the customer's consent, which is never ticked for them.
type SaveMethodForm struct {
	FormToken string `form:"form_token"`
	// Method is "card" or "bank_account".
	Method        string            `form:"method"`
	CardNumber    CardNumberField   `form:"card_number"`
	Expiry        string            `form:"expiry"`
	SecurityCode  SecurityCodeField `form:"security_code"`
	BillingName   string            `form:"billing_name"`
	BillingAddr   string            `form:"billing_address"`
	BillingZIP    string            `form:"billing_zip"`
	HolderName    string            `form:"holder_name"`
	RoutingNumber string            `form:"routing_number"`
	AccountNumber BankAccountField  `form:"account_number"`
	AccountType   string            `form:"account_type"`
	Consent       httpx.Checkbox    `form:"consent"`
	ConsentHow    string            `form:"consent_how"`
}

// SaveMethod tokenizes a card or bank account for a customer and keeps the
// token once the processor approves.
func (s *Service) SaveMethod(ctx context.Context, u *models.User, merchantID, customerID uuid.UUID, f *SaveMethodForm) (*Result, error) {
	m, err := authorize(ctx, s.merchants, u, merchantID, PermSavedMethods)
	if err != nil {
		return nil, err
	}
	c, err := s.loadCustomer(ctx, nil, m.ID, customerID)
	if err != nil {
		return nil, err
	}
	id, earlier, err := s.readToken(ctx, m, u, f.FormToken, PurposeSaveMethod(c.ID))
	if err != nil || earlier != nil {
		return &Result{Transaction: earlier, Repeated: true}, err
	}
	errs := apperr.FieldErrors{}
	if !f.Consent {
		errs.Add("consent", "The customer's consent is needed to keep a payment method on file.")
	}
	how := ""
	for _, w := range ConsentWays {
		if w.Value == f.ConsentHow {
			how = w.Value
		}
	}
	if how == "" {
		errs.Add("consent_how", "Say how the customer gave their consent.")
	}
	var card upstream.Card
	var bank upstream.BankAccount
	n := NewTransaction{ID: id, MerchantID: m.ID, Kind: KindSaveMethod, CustomerID: &c.ID, CreatedBy: &u.ID}
	switch f.Method {
	case "card":
		card = cardFrom(f.CardNumber, f.Expiry, f.SecurityCode, s.now(), errs)
		b := billingForm{BillingName: f.BillingName, BillingAddress: f.BillingAddr, BillingZIP: f.BillingZIP}
		b.validate(errs)
		n.Source, n.Card, n.Billing = SourceCard, cardSummary(card.Number), b.billing()
	case "bank_account":
		p, verr := (&ACHPaymentForm{Amount: "1.00", HolderName: f.HolderName, RoutingNumber: f.RoutingNumber,
			AccountNumber: f.AccountNumber, AccountType: f.AccountType, AuthorizedHow: "written", Authorized: true}).validate()
		if fields, ok := apperr.FieldsOf(verr); ok {
			for k, v := range fields {
				errs.Add(k, v)
			}
		} else if p != nil {
			bank = p.account
			n.Source, n.Billing = SourceACH, Billing{Name: bank.HolderName}
			n.Card = Card{Brand: string(bank.Type) + " account", Last4: bank.Number.Last4(), AccountType: string(bank.Type)}
		}
	default:
		errs.Add("method", "Choose a card or a bank account.")
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	n.Event = Event{Kind: EventRequested, Message: "Saving " + n.Card.Label() + " for the customer"}
	in := intent{n: n, audit: audit.ActionMethodSaved, also: func(tx pgx.Tx, t *Transaction) error {
		return s.recordConsent(ctx, tx, u, consent{merchantID: m.ID, customerID: &c.ID, purpose: consentSave, how: how,
			givenBy: c.Name, transactionID: &t.ID})
	}}
	t, repeated, err := s.record(ctx, u, m, &in)
	if err != nil || repeated {
		return &Result{Transaction: t, Repeated: repeated}, err
	}
	ref := s.ref(t, u)
	ut, callErr := s.call(ctx, func(cctx context.Context) (*upstream.Transaction, error) {
		if t.Source == SourceACH {
			return s.up.TokenizeBankAccount(cctx, m.Account, upstream.ACHTokenize{Ref: ref, Account: bank})
		}
		return s.up.TokenizeCard(cctx, m.Account, upstream.CardTokenize{Ref: ref, Card: card,
			Billing: upstream.Billing{Name: n.Billing.Name, Address: n.Billing.Address, PostalCode: n.Billing.PostalCode}})
	})
	t, err = s.finish(ctx, t, ut, callErr, func(tx pgx.Tx, t *Transaction) error { return s.afterAnswer(ctx, tx, t) })
	return &Result{Transaction: t}, err
}

// SavedPaymentForm pays with a saved card or bank account.
type SavedPaymentForm struct {
	FormToken    string `form:"form_token"`
	MethodID     string `form:"method_id"`
	Action       string `form:"action"`
	Amount       string `form:"amount"`
	Tip          string `form:"tip"`
	Tax          string `form:"tax"`
	Reference    string `form:"reference"`
	ReceiptEmail string `form:"receipt_email"`
	// Bank accounts: the customer's authorization of this debit.
	AuthorizedHow    string         `form:"authorized_how"`
	Authorized       httpx.Checkbox `form:"authorized"`
	ConfirmDuplicate httpx.Checkbox `form:"confirm_duplicate"`
}

// PaySaved charges (or authorizes) a saved method.
func (s *Service) PaySaved(ctx context.Context, u *models.User, merchantID uuid.UUID, f *SavedPaymentForm) (*Result, error) {
	m, err := authorize(ctx, s.merchants, u, merchantID, PermTakePayments)
	if err != nil {
		return nil, err
	}
	id, earlier, err := s.readToken(ctx, m, u, f.FormToken, PurposeSaved)
	if err != nil || earlier != nil {
		return &Result{Transaction: earlier, Repeated: true}, err
	}
	errs := apperr.FieldErrors{}
	var sm *SavedMethod
	if methodID, perr := uuid.Parse(f.MethodID); perr != nil {
		errs.Add("method_id", "Choose a saved card or bank account.")
	} else if sm, err = s.method(ctx, m.ID, methodID); errors.Is(err, models.ErrNotFound) {
		return nil, errMethodGone
	} else if err != nil {
		return nil, err
	}
	kind := KindSale
	if f.Action == "authorization" {
		kind = KindAuthorization
	}
	amount, msg := ParseAmount(f.Amount)
	if msg != "" {
		errs.Add("amount", msg)
	}
	tip, msg := parseOptionalAmount(f.Tip)
	if msg != "" {
		errs.Add("tip", msg)
	}
	tax, msg := parseOptionalAmount(f.Tax)
	if msg != "" {
		errs.Add("tax", msg)
	}
	reference := checkReference(f.Reference, errs)
	receipt := checkEmail("receipt_email", f.ReceiptEmail, errs)
	source, how := SourceCard, ""
	if sm != nil && sm.IsBank() {
		source = SourceACH
		if kind == KindAuthorization || tip > 0 || tax > 0 {
			errs.Add("action", "A bank account is debited at once: no authorization, tip or tax.")
		}
		how = checkAuthorization(f.AuthorizedHow, bool(f.Authorized), errs)
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	in := intent{n: NewTransaction{ID: id, MerchantID: m.ID, Source: source, Kind: kind, CustomerID: &sm.CustomerID,
		SavedMethodID: &sm.ID, AmountCents: amount, TipCents: tip, TaxCents: tax, Reference: reference, Card: sm.Card,
		CreatedBy: &u.ID, Event: Event{Kind: EventRequested, Message: requestWords(kind, source, amount+tip, sm.Card) + " (saved method)"}},
		dupSource: source, confirmed: bool(f.ConfirmDuplicate), audit: audit.ActionPaymentRequested}
	if source == SourceACH {
		in.also = func(tx pgx.Tx, t *Transaction) error {
			c, err := s.loadCustomer(ctx, tx, m.ID, sm.CustomerID)
			if err != nil {
				return err
			}
			return s.recordConsent(ctx, tx, u, consent{merchantID: m.ID, customerID: &sm.CustomerID, purpose: consentACH,
				how: how, givenBy: c.Name, transactionID: &t.ID})
		}
	}
	t, repeated, err := s.record(ctx, u, m, &in)
	if err != nil || repeated {
		return &Result{Transaction: t, Repeated: repeated}, err
	}
	req := upstream.TokenizedPayment{Ref: s.ref(t, u), UniqueTransID: sm.Token, Amount: upstream.Cents(amount),
		TipAmount: optionalCents(tip), TaxAmount: optionalCents(tax)}
	ut, callErr := s.call(ctx, func(cctx context.Context) (*upstream.Transaction, error) {
		if kind == KindAuthorization {
			return s.up.TokenizedAuthorization(cctx, m.Account, req)
		}
		return s.up.TokenizedPayment(cctx, m.Account, req)
	})
	t, err = s.finish(ctx, t, ut, callErr, func(tx pgx.Tx, t *Transaction) error {
		return s.afterPayment(ctx, tx, u, m, t, receipt)
	})
	return &Result{Transaction: t}, err
}
