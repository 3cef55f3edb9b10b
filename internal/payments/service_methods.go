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
	p, err := f.validate(s.now())
	if err != nil {
		return nil, err
	}
	n := NewTransaction{ID: id, MerchantID: m.ID, Kind: KindSaveMethod, CustomerID: &c.ID, CreatedBy: &u.ID,
		Source: p.source, Card: p.summary, Billing: p.billing}
	n.Event = Event{Kind: EventRequested, Message: "Saving " + n.Card.Label() + " for the customer"}
	in := intent{n: n, audit: audit.ActionMethodSaved, also: func(tx pgx.Tx, t *Transaction) error {
		return s.recordConsent(ctx, tx, u, consent{merchantID: m.ID, customerID: &c.ID, purpose: consentSave, how: p.consentHow,
			givenBy: c.Name, transactionID: &t.ID})
	}}
	t, repeated, err := s.record(ctx, u, m, &in)
	if err != nil || repeated {
		return &Result{Transaction: t, Repeated: repeated}, err
	}
	ref := s.ref(t, u)
	ut, callErr := s.call(ctx, func(cctx context.Context) (*upstream.Transaction, error) {
		return s.tokenize(cctx, m, ref, p)
	})
	t, err = s.finish(ctx, t, ut, callErr, func(tx pgx.Tx, t *Transaction) error { return s.afterAnswer(ctx, tx, t) })
	return &Result{Transaction: t}, err
}

// tokenize asks the processor for a token of the card or bank account to save.
func (s *Service) tokenize(ctx context.Context, m *Merchant, ref upstream.Ref, p methodToSave) (*upstream.Transaction, error) {
	if p.source == SourceACH {
		return s.up.TokenizeBankAccount(ctx, m.Account, upstream.ACHTokenize{Ref: ref, Account: p.bank})
	}
	return s.up.TokenizeCard(ctx, m.Account, upstream.CardTokenize{Ref: ref, Card: p.card,
		Billing: upstream.Billing{Name: p.billing.Name, Address: p.billing.Address, PostalCode: p.billing.PostalCode}})
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
	sm, err := s.chosenMethod(ctx, m.ID, f.MethodID, errs)
	if err != nil {
		return nil, err
	}
	p := f.validate(sm, errs)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	in := intent{n: NewTransaction{ID: id, MerchantID: m.ID, Source: p.source, Kind: p.kind, CustomerID: &sm.CustomerID,
		SavedMethodID: &sm.ID, AmountCents: p.amount, TipCents: p.tip, TaxCents: p.tax, Reference: p.reference, Card: sm.Card,
		CreatedBy: &u.ID, Event: Event{Kind: EventRequested, Message: requestWords(p.kind, p.source, p.amount+p.tip, sm.Card) + " (saved method)"}},
		dupSource: p.source, confirmed: bool(f.ConfirmDuplicate), audit: audit.ActionPaymentRequested}
	if p.source == SourceACH {
		in.also = s.debitConsent(ctx, u, m, sm, p.authorizedHow)
	}
	t, repeated, err := s.record(ctx, u, m, &in)
	if err != nil || repeated {
		return &Result{Transaction: t, Repeated: repeated}, err
	}
	req := upstream.TokenizedPayment{Ref: s.ref(t, u), UniqueTransID: sm.Token, Amount: upstream.Cents(p.amount),
		TipAmount: optionalCents(p.tip), TaxAmount: optionalCents(p.tax)}
	ut, callErr := s.call(ctx, func(cctx context.Context) (*upstream.Transaction, error) {
		if p.kind == KindAuthorization {
			return s.up.TokenizedAuthorization(cctx, m.Account, req)
		}
		return s.up.TokenizedPayment(cctx, m.Account, req)
	})
	t, err = s.finish(ctx, t, ut, callErr, func(tx pgx.Tx, t *Transaction) error {
		return s.afterPayment(ctx, tx, u, m, t, p.receipt)
	})
	return &Result{Transaction: t}, err
}

// chosenMethod loads the saved method a form names. A form that names none gets
// its field error in errs (and no method, so that the other fields are still
// checked); a method no longer on file is refused on its own (errMethodGone).
func (s *Service) chosenMethod(ctx context.Context, merchantID uuid.UUID, typed string, errs apperr.FieldErrors) (*SavedMethod, error) {
	methodID, err := uuid.Parse(typed)
	if err != nil {
		errs.Add("method_id", "Choose a saved card or bank account.")
		return nil, nil
	}
	sm, err := s.method(ctx, merchantID, methodID)
	if errors.Is(err, models.ErrNotFound) {
		return nil, errMethodGone
	}
	return sm, err
}

// debitConsent records, with a debit of a saved bank account, the customer's
// authorization of it (Nacha).
func (s *Service) debitConsent(ctx context.Context, u *models.User, m *Merchant, sm *SavedMethod, how string) func(tx pgx.Tx, t *Transaction) error {
	return func(tx pgx.Tx, t *Transaction) error {
		c, err := s.loadCustomer(ctx, tx, m.ID, sm.CustomerID)
		if err != nil {
			return err
		}
		return s.recordConsent(ctx, tx, u, consent{merchantID: m.ID, customerID: &sm.CustomerID, purpose: consentACH,
			how: how, givenBy: c.Name, transactionID: &t.ID})
	}
}
