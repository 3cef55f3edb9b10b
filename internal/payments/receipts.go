package payments

import (
	"context"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/models"
)

// ReceiptForm e-mails a transaction's receipt.
type ReceiptForm struct {
	Email string `form:"receipt_email"`
}

// SendReceipt e-mails the receipt of an approved payment or refund (anyone
// who may take payments or refund may send one).
func (s *Service) SendReceipt(ctx context.Context, u *models.User, merchantID, id uuid.UUID, f *ReceiptForm) (*Transaction, error) {
	m, err := authorize(ctx, s.merchants, u, merchantID, PermView)
	if err != nil {
		return nil, err
	}
	if !m.Can(PermTakePayments) && !m.Can(PermRefund) {
		return nil, apperr.New(apperr.KindForbidden, "%s", msgNoRight(PermTakePayments))
	}
	errs := apperr.FieldErrors{}
	to := checkEmail("receipt_email", f.Email, errs)
	if to == "" && len(errs) == 0 {
		errs.Add("receipt_email", "Enter the e-mail address to send the receipt to.")
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	t, err := s.ledger.Get(ctx, nil, m.ID, id)
	if err != nil {
		return nil, err
	}
	if !t.Status.Succeeded() || t.Kind.IsOperation() || t.Kind == KindSaveMethod {
		return nil, apperr.New(apperr.KindConflict, "Only an approved payment or refund has a receipt.")
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error { return s.queueReceipt(ctx, tx, u, m, t, to) })
	return t, err
}

// queueReceipt puts t's receipt in the outbox, in tx, and notes it in the
// timeline and the audit trail (the address itself is kept in the outbox
// only).
func (s *Service) queueReceipt(ctx context.Context, tx pgx.Tx, u *models.User, m *Merchant, t *Transaction, to string) error {
	what := t.KindWords()
	if t.Kind == KindSale || t.Kind == KindAuthorization {
		what = "payment"
		if t.Source == SourceACH {
			what = "bank payment"
		}
	}
	total := t.ApprovedCents
	if total == 0 {
		total = t.TotalCents()
	}
	d := mail.ReceiptData{ResellerName: s.cfg.ResellerName, MerchantName: m.Name, What: what,
		Date: mail.When(t.CreatedAt, u.TimeZone), Total: FormatCents(total), // the cashier's zone: the shop's
		Card: t.Card.Label(), ApprovalCode: t.ApprovalCode, Reference: t.Reference, TransactionID: t.ID.String()}
	if t.TipCents > 0 {
		d.Amount, d.Tip = FormatCents(t.AmountCents), FormatCents(t.TipCents)
	}
	content, err := mail.ReceiptEmail(d)
	if err != nil {
		return err
	}
	if _, err := s.outbox.Enqueue(ctx, tx, mail.Message{Kind: mail.KindReceipt, To: to, Content: content, CreatedBy: audit.ActorOf(u)}); err != nil {
		return err
	}
	if err := s.ledger.AddEvent(ctx, tx, Event{TransactionID: t.ID, Kind: EventReceiptSent, ActorID: audit.ActorOf(u),
		Message: "Receipt e-mailed to " + maskEmail(to)}); err != nil {
		return err
	}
	return audit.Record(ctx, tx, audit.Event{Subject: audit.Transaction(t.ID), Actor: audit.ActorOf(u), Action: audit.ActionReceiptSent,
		Details: audit.PaymentDetails{TransactionID: t.ID.String(), Amount: FormatCents(total)}, At: s.now().UTC()})
}

// maskEmail shows an address as p***@example.com.
func maskEmail(e string) string {
	local, domain, ok := strings.Cut(e, "@")
	if !ok || local == "" {
		return "***"
	}
	return string([]rune(local)[0]) + "***@" + domain
}
