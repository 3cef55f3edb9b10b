package payments

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/models"
	upstream "github.com/payportal/portal/internal/upstream/payments"
)

// ReversePlan is what "Reverse" will do to a payment, and why: a void while
// one may work, else a refund linked to the payment.
type ReversePlan struct {
	Merchant *Merchant
	Original *Transaction
	// Open is a void of this payment still on its way (nothing else may
	// start until it is answered); refunds on their way count in LeftCents.
	Open *Transaction
	// LeftCents is what can still be reversed.
	LeftCents int64
	// Void: the full amount is reversed by a void first. VoidDeadline is
	// when the 25-minute rule starts turning a void into a refund (zero for
	// authorizations, which have none); past it, VoidBecomesRefund.
	Void              bool
	VoidDeadline      time.Time
	VoidBecomesRefund bool
	// Settled: a void was refused because the payment settled; only a
	// refund is possible.
	Settled bool
	// Refund: a refund (part or all of LeftCents) is possible.
	Refund bool
	// ReviewAtCents: a card refund below this (the original amount) is held
	// by the processor's risk team for 24 to 48 hours.
	ReviewAtCents int64
	Why           string
}

// ReviewWarning asks for an explicit go-ahead before a refund the processor
// would hold for review.
type ReviewWarning struct{ Reasons []string }

// Error lists the reasons.
func (e *ReviewWarning) Error() string { return "payments: the refund would be held for review" }

// ReverseForm is the "Reverse" form.
type ReverseForm struct {
	FormToken string `form:"form_token"`
	Amount    string `form:"amount"`
	// Acknowledge is the go-ahead after the review warning.
	Acknowledge bool `form:"acknowledge"`
}

// PlanReverse says what reversing a payment will do now.
func (s *Service) PlanReverse(ctx context.Context, u *models.User, merchantID, id uuid.UUID) (*ReversePlan, error) {
	m, err := authorize(ctx, s.merchants, u, merchantID, PermView)
	if err != nil {
		return nil, err
	}
	orig, err := s.ledger.Get(ctx, nil, m.ID, id)
	if err != nil {
		return nil, err
	}
	return s.plan(ctx, nil, m, orig)
}

// plan works out the reversal of orig (read under its lock for a plan that
// holds).
func (s *Service) plan(ctx context.Context, tx pgx.Tx, m *Merchant, orig *Transaction) (*ReversePlan, error) {
	p := &ReversePlan{Merchant: m, Original: orig, ReviewAtCents: orig.ApprovedCents}
	reversible := (orig.Kind == KindSale || orig.Kind == KindAuthorization) &&
		(orig.Status == StatusApproved || orig.Status == StatusPartial || orig.Status == StatusCaptured)
	if !reversible {
		p.Why = "Only an approved payment can be reversed."
		return p, nil
	}
	if orig.Source == SourceTerminal {
		// The terminal cloud voids and returns its own transactions; area B
		// knows nothing of them (the terminals room's pages do it).
		p.Why = "A card terminal's transaction is voided, or returned, on the terminal: open it on the merchant's terminals page."
		return p, nil
	}
	children, err := s.ledger.Children(ctx, tx, orig.ID)
	if err != nil {
		return nil, err
	}
	var capture *Transaction
	refunds := false
	for _, c := range children {
		switch {
		case c.Kind == KindVoid && c.Status.Open():
			p.Open = c
		case c.Kind == KindCapture && c.Status.Succeeded():
			capture = c
		case c.Kind == KindRefund && (c.Status.Succeeded() || c.Status.Open()):
			refunds = true
		}
	}
	p.Settled = orig.Details["settled"] == "true"
	if p.LeftCents, err = s.ledger.RefundLeft(ctx, tx, orig); err != nil {
		return nil, err
	}
	if orig.Kind == KindAuthorization && orig.Status != StatusCaptured {
		// An authorization is released by a void, whatever its age.
		p.LeftCents, p.Void = orig.ApprovedCents, p.Open == nil
		p.Why = "An authorization is released with a void: the hold on the card ends and nothing is charged."
		if p.Open != nil {
			p.Why = "A void of this authorization is on its way; wait for its answer."
		}
		return p, nil
	}
	p.Refund = p.LeftCents > 0 && p.Open == nil
	p.Void = !p.Settled && !refunds && p.Open == nil && p.LeftCents > 0
	if p.Void {
		from := orig.CreatedAt
		if capture != nil {
			from = capture.CreatedAt
		}
		p.VoidDeadline = from.Add(VoidWindow)
		p.VoidBecomesRefund = !s.now().Before(p.VoidDeadline)
	}
	switch {
	case p.Open != nil:
		p.Why = "A void of this payment is on its way; wait for its answer."
	case p.LeftCents == 0:
		p.Why = "Nothing is left to reverse."
	case p.Settled:
		p.Why = "This payment has settled, so it cannot be voided: it is refunded to the same card or account instead."
	case p.VoidBecomesRefund:
		p.Why = "More than 25 minutes have passed: the processor turns a void into a refund of the full amount."
	case p.Void:
		p.Why = "Reversing the full amount voids the payment: nothing reaches the customer's statement. A part is refunded instead."
	default:
		p.Why = "This payment has refunds, so the rest is refunded too."
	}
	return p, nil
}

// reverseTarget is the upstream transaction a void or refund of orig names:
// the capture of a captured authorization, else the original itself.
func (s *Service) reverseTarget(ctx context.Context, tx pgx.Tx, orig *Transaction) (string, error) {
	if orig.Kind != KindAuthorization || orig.Status != StatusCaptured {
		return orig.UniqueTransID, nil
	}
	children, err := s.ledger.Children(ctx, tx, orig.ID)
	if err != nil {
		return "", err
	}
	for _, c := range children {
		if c.Kind == KindCapture && c.Status.Succeeded() {
			return c.UniqueTransID, nil
		}
	}
	return "", errors.New("payments: captured authorization without its capture")
}

// Reverse voids a payment while a void may work, else refunds it, linked and
// capped: the amount asked, or all that is left.
func (s *Service) Reverse(ctx context.Context, u *models.User, merchantID, id uuid.UUID, f *ReverseForm) (*Result, error) {
	m, err := authorizeAction(ctx, s.merchants, u, merchantID, func(m *Merchant) (Permission, error) {
		if err := refusal(m, PermView); err != nil {
			return "", err
		}
		if !m.Can(PermVoid) && !m.Can(PermRefund) {
			return "", apperr.New(apperr.KindForbidden, "%s", msgNoRight(PermRefund))
		}
		p := firstRight(m, PermVoid, PermRefund)
		return p, refusal(m, p) // suspended
	})
	if err != nil {
		return nil, err // suspended, or no account
	}
	tid, earlier, err := s.readToken(ctx, m, u, f.FormToken, PurposeReverse(id))
	if err != nil || earlier != nil {
		return &Result{Transaction: earlier, Repeated: true}, err
	}
	amount, msg := ParseAmount(f.Amount)
	if msg != "" {
		return nil, apperr.Invalid("amount", msg)
	}
	var target string
	in := intent{n: NewTransaction{ID: tid, MerchantID: m.ID, ParentID: &id, AmountCents: amount, CreatedBy: &u.ID}}
	in.before = func(tx pgx.Tx) error {
		orig, err := s.ledger.Lock(ctx, tx, m.ID, id)
		if err != nil {
			return err
		}
		p, err := s.plan(ctx, tx, m, orig)
		if err != nil {
			return err
		}
		if target, err = s.reverseTarget(ctx, tx, orig); err != nil {
			return err
		}
		in.original = orig
		in.n.Source, in.n.Card, in.n.CustomerID, in.n.Reference = orig.Source, orig.Card, orig.CustomerID, orig.Reference
		return s.choose(m, p, f, &in)
	}
	t, repeated, err := s.record(ctx, u, m, &in)
	if err != nil || repeated {
		return &Result{Transaction: t, Repeated: repeated}, err
	}
	ref := s.ref(t, u)
	ut, callErr := s.call(ctx, func(cctx context.Context) (*upstream.Transaction, error) {
		if t.Kind == KindVoid {
			return s.up.Void(cctx, m.Account, upstream.VoidRequest{Ref: ref, UniqueTransID: target})
		}
		return s.up.TokenizedRefund(cctx, m.Account, upstream.TokenizedRefund{Ref: ref, UniqueTransID: target, Amount: upstream.Cents(amount)})
	})
	t, err = s.finish(ctx, t, ut, callErr, func(tx pgx.Tx, t *Transaction) error {
		if t.Status == StatusFailed && errors.Is(callErr, upstream.ErrAlreadySettled) {
			// The processor says the payment settled: remember it, so the
			// next plan offers the refund.
			_, err := tx.Exec(ctx, `UPDATE ledger_transactions SET details = details || '{"settled": "true"}', updated_at = $2 WHERE id = $1`,
				id, s.now().UTC())
			return err
		}
		return nil
	})
	return &Result{Transaction: t}, err
}

// choose decides between a void and a refund under the original's lock.
func (s *Service) choose(m *Merchant, p *ReversePlan, f *ReverseForm, in *intent) error {
	amount := in.n.AmountCents
	switch {
	case p.Open != nil:
		return apperr.New(apperr.KindConflict, "A void of this payment is already on its way. Wait for its answer.")
	case p.LeftCents == 0 && !p.Void:
		return apperr.New(apperr.KindConflict, "Nothing is left to reverse on this payment.")
	case amount > p.LeftCents:
		return apperr.Invalid("amount", "At most "+FormatCents(p.LeftCents)+" is left to reverse.")
	}
	if p.Void && amount == p.LeftCents && m.Can(PermVoid) {
		in.n.Kind, in.audit = KindVoid, audit.ActionVoidRequested
		in.n.Event = Event{Kind: EventVoidRequested, Message: "Void of " + FormatCents(amount) + " sent to the processor"}
		return nil
	}
	if p.Original.Kind == KindAuthorization && p.Original.Status != StatusCaptured {
		if !m.Can(PermVoid) {
			return apperr.New(apperr.KindForbidden, "%s", msgNoRight(PermVoid))
		}
		return apperr.Invalid("amount", "An authorization is released in full: reverse "+FormatCents(p.LeftCents)+".")
	}
	if !m.Can(PermRefund) {
		return apperr.New(apperr.KindForbidden, "%s", msgNoRight(PermRefund))
	}
	if p.Original.Source != SourceACH && amount < p.ReviewAtCents && !f.Acknowledge {
		return &ReviewWarning{Reasons: []string{"partial"}}
	}
	in.n.Kind, in.refund, in.audit = KindRefund, true, audit.ActionRefundRequested
	in.n.Event = Event{Kind: EventRefundRequested, Message: "Refund of " + FormatCents(amount) + " sent to the processor"}
	return nil
}

func firstRight(m *Merchant, ps ...Permission) Permission {
	for _, p := range ps {
		if m.Can(p) {
			return p
		}
	}
	return ps[0]
}
