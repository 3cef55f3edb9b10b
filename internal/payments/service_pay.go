package payments

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/models"
	upstream "github.com/payportal/portal/internal/upstream/payments"
)

// The purposes of form tokens: a token works only on the form it was minted
// for (MintToken).
const (
	PurposePay   = "pay"
	PurposeACH   = "ach"
	PurposeSaved = "saved"
)

// PurposeSaveMethod is the purpose of the form saving a method for a customer.
func PurposeSaveMethod(customerID uuid.UUID) string { return "save-method:" + customerID.String() }

// PurposeReverse is the purpose of the Reverse form of a transaction (the
// capture and tip forms have theirs too).
func PurposeReverse(id uuid.UUID) string { return "reverse:" + id.String() }

// PurposeCapture is the purpose of the capture form of an authorization.
func PurposeCapture(id uuid.UUID) string { return "capture:" + id.String() }

// PurposeTip is the purpose of the tip form of a sale.
func PurposeTip(id uuid.UUID) string { return "tip:" + id.String() }

// Result is what became of a request.
type Result struct {
	Transaction *Transaction
	// Repeated: the form had been sent before (a double click, a second
	// submit, a retry); this is the transaction it made then.
	Repeated bool
}

// DuplicateError warns that a payment looks like one made moments ago: the
// same card's last four and the same total. Only an explicit "charge again"
// sends it.
type DuplicateError struct{ Earlier *Transaction }

// Error describes the warning.
func (e *DuplicateError) Error() string {
	return "payments: looks like a duplicate of " + e.Earlier.ID.String()
}

// MintToken returns a fresh form token for purpose ("pay", "ach", ...).
func (s *Service) MintToken(m *Merchant, u *models.User, purpose string) (string, error) {
	return s.tokens.Mint(m.ID, u.ID, purpose)
}

// readToken opens a form token: the form's earlier transaction if it was sent
// before, else the new transaction's id.
func (s *Service) readToken(ctx context.Context, m *Merchant, u *models.User, token, purpose string) (uuid.UUID, *Transaction, error) {
	id, expired, err := s.tokens.Read(token, m.ID, u.ID, purpose)
	if err != nil {
		return uuid.Nil, nil, err
	}
	if t, err := s.ledger.Get(ctx, nil, m.ID, id); err == nil {
		return id, t, nil
	} else if !errors.Is(err, models.ErrNotFound) {
		return uuid.Nil, nil, err
	}
	if expired {
		return uuid.Nil, nil, apperr.Invalid("form", "This form was opened more than 12 hours ago. Check the details and send it again.")
	}
	return id, nil, nil
}

// PayCard charges (or authorizes) a keyed card: it records the intent, sends
// the request once, and records the answer. A form sent before answers its
// transaction (Result.Repeated); a duplicate-looking payment answers
// *DuplicateError until confirmed.
func (s *Service) PayCard(ctx context.Context, u *models.User, merchantID uuid.UUID, f *CardPaymentForm) (*Result, error) {
	m, err := authorize(ctx, s.merchants, u, merchantID, PermTakePayments)
	if err != nil {
		return nil, err
	}
	id, earlier, err := s.readToken(ctx, m, u, f.FormToken, PurposePay)
	if err != nil || earlier != nil {
		return &Result{Transaction: earlier, Repeated: true}, err
	}
	p, err := f.validate(s.now())
	if err != nil {
		return nil, err
	}
	if err := s.checkCustomer(ctx, m.ID, p.customerID); err != nil {
		return nil, err
	}
	card := cardSummary(p.card.Number)
	in := intent{n: NewTransaction{ID: id, MerchantID: m.ID, Source: SourceCard, Kind: p.kind, CustomerID: p.customerID,
		AmountCents: p.amount, TipCents: p.tip, TaxCents: p.tax, Reference: p.reference, Card: card, Billing: p.billing,
		CreatedBy: &u.ID, Details: level2Details(p.level2),
		Event: Event{Kind: EventRequested, Message: requestWords(p.kind, SourceCard, p.amount+p.tip, card)}},
		dupSource: SourceCard, confirmed: bool(f.ConfirmDuplicate), audit: audit.ActionPaymentRequested}
	t, repeated, err := s.record(ctx, u, m, &in)
	if err != nil || repeated {
		return &Result{Transaction: t, Repeated: repeated}, err
	}
	req := upstream.CardPayment{Ref: s.ref(t, u), Card: p.card,
		Billing: upstream.Billing{Name: p.billing.Name, Address: p.billing.Address, PostalCode: p.billing.PostalCode},
		Amount:  upstream.Cents(p.amount), TipAmount: optionalCents(p.tip), TaxAmount: optionalCents(p.tax), Level2: p.level2}
	ut, callErr := s.call(ctx, func(cctx context.Context) (*upstream.Transaction, error) {
		if p.kind == KindAuthorization {
			return s.up.Authorize(cctx, m.Account, req)
		}
		return s.up.Sale(cctx, m.Account, req)
	})
	t, err = s.finish(ctx, t, ut, callErr, s.receiptAfter(ctx, u, m, p.receiptMail))
	return &Result{Transaction: t}, err
}

// receiptAfter is what the answer of a keyed payment runs in its database
// transaction: the receipt asked for, if any. Nil when none was asked: the
// answer then needs no transaction of its own (afterAnswer, which
// afterPayment also runs, only ever acts on saving a method).
func (s *Service) receiptAfter(ctx context.Context, u *models.User, m *Merchant, receiptTo string) func(tx pgx.Tx, t *Transaction) error {
	if receiptTo == "" {
		return nil
	}
	return func(tx pgx.Tx, t *Transaction) error { return s.afterPayment(ctx, tx, u, m, t, receiptTo) }
}

// PayACH debits a keyed bank account, recording the customer's authorization
// (Nacha) with the intent.
func (s *Service) PayACH(ctx context.Context, u *models.User, merchantID uuid.UUID, f *ACHPaymentForm) (*Result, error) {
	m, err := authorize(ctx, s.merchants, u, merchantID, PermTakePayments)
	if err != nil {
		return nil, err
	}
	id, earlier, err := s.readToken(ctx, m, u, f.FormToken, PurposeACH)
	if err != nil || earlier != nil {
		return &Result{Transaction: earlier, Repeated: true}, err
	}
	p, err := f.validate()
	if err != nil {
		return nil, err
	}
	if err := s.checkCustomer(ctx, m.ID, p.customerID); err != nil {
		return nil, err
	}
	card := Card{Brand: string(p.account.Type) + " account", Last4: p.account.Number.Last4(), AccountType: string(p.account.Type)}
	in := intent{n: NewTransaction{ID: id, MerchantID: m.ID, Source: SourceACH, Kind: KindSale, CustomerID: p.customerID,
		AmountCents: p.amount, Reference: p.reference, Card: card, Billing: p.billing, CreatedBy: &u.ID,
		Details: map[string]string{"routingNumber": p.account.RoutingNumber},
		Event:   Event{Kind: EventRequested, Message: requestWords(KindSale, SourceACH, p.amount, card)}},
		dupSource: SourceACH, audit: audit.ActionPaymentRequested,
		also: func(tx pgx.Tx, t *Transaction) error {
			return s.recordConsent(ctx, tx, u, consent{merchantID: m.ID, customerID: p.customerID, purpose: consentACH,
				how: p.how, givenBy: p.account.HolderName, transactionID: &t.ID})
		}}
	t, repeated, err := s.record(ctx, u, m, &in)
	if err != nil || repeated {
		return &Result{Transaction: t, Repeated: repeated}, err
	}
	req := upstream.ACHPayment{Ref: s.ref(t, u), Account: p.account, Amount: upstream.Cents(p.amount),
		CheckNumber: p.checkNumber, BillingAddress: p.billing.Address, BillingPostalCode: p.billing.PostalCode}
	ut, callErr := s.call(ctx, func(cctx context.Context) (*upstream.Transaction, error) {
		return s.up.ACHSale(cctx, m.Account, req)
	})
	t, err = s.finish(ctx, t, ut, callErr, s.receiptAfter(ctx, u, m, p.receiptMail))
	return &Result{Transaction: t}, err
}

// ref is what every request of t carries: its id as the externalTransactionId
// and the idempotency key, the cashier and the reference.
func (s *Service) ref(t *Transaction, u *models.User) upstream.Ref {
	ref := upstream.Ref{ExternalTransactionID: t.ID.String(), IdempotencyKey: t.ID.String(), TransactionReference: t.Reference}
	if u != nil {
		ref.CashierID = cashierOf(u)
	}
	return ref
}

// cashierOf names the user to the processor (its cashierId, up to 50
// characters): their name, else their e-mail's local part.
func cashierOf(u *models.User) string {
	name := u.Name
	if name == "" {
		name = u.Email
	}
	r := []rune(name)
	if len(r) > 50 {
		r = r[:50]
	}
	return string(r)
}

// afterPayment runs in the answer's transaction: the receipt asked for.
func (s *Service) afterPayment(ctx context.Context, tx pgx.Tx, u *models.User, m *Merchant, t *Transaction, receiptTo string) error {
	if err := s.afterAnswer(ctx, tx, t); err != nil {
		return err
	}
	if receiptTo == "" || !t.Status.Succeeded() {
		return nil
	}
	return s.queueReceipt(ctx, tx, u, m, t, receiptTo)
}

func optionalCents(c int64) upstream.Amount {
	if c == 0 {
		return ""
	}
	return upstream.Cents(c)
}

func level2Details(l *upstream.Level2) map[string]string {
	if l == nil {
		return nil
	}
	return map[string]string{"level2": "true", "purchaseId": l.PurchaseID, "purchaseOrder": l.PurchaseOrderNumber,
		"taxExempt": strconv.FormatBool(l.IsTaxExempt)}
}

// requestWords is the timeline's first entry.
func requestWords(k Kind, src Source, cents int64, c Card) string {
	what := (&Transaction{Kind: k, Source: src}).KindLabel()
	s := what + " of " + FormatCents(cents)
	if c.Last4 != "" {
		s += " on " + c.Label()
	}
	return s + " sent to the processor"
}

// VoidDeadline is when a void of t becomes a refund under the 25-minute
// rule (authorizations have none: the zero time).
func VoidDeadline(t *Transaction) time.Time {
	if t.Kind == KindAuthorization && t.Status != StatusCaptured {
		return time.Time{}
	}
	return t.CreatedAt.Add(VoidWindow)
}

// VoidWindow is the direct gateway's published rule: a void more than 25
// minutes after the transaction becomes a refund.
const VoidWindow = 25 * time.Minute
