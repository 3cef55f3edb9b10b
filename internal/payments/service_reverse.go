package payments

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/httpx"
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
	Acknowledge httpx.Checkbox `form:"acknowledge"`
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
// holds): the facts of the payment, then the row of reverseRules they match.
func (s *Service) plan(ctx context.Context, tx pgx.Tx, m *Merchant, orig *Transaction) (*ReversePlan, error) {
	p := &ReversePlan{Merchant: m, Original: orig, ReviewAtCents: orig.ApprovedCents}
	f, err := s.reverseFacts(ctx, tx, p)
	if err != nil {
		return nil, err
	}
	r := reverseRuleFor(f)
	p.Void, p.Refund, p.VoidBecomesRefund, p.Why = r.then.void, r.then.refund, r.then.becomesRefund, r.then.why
	if r.then.releaseAll {
		p.LeftCents = orig.ApprovedCents
	}
	if !r.then.deadline {
		p.VoidDeadline = time.Time{}
	}
	return p, nil
}

// reverseFacts reads what the plan depends on into f, and into p what it
// shows (the void on its way, the settled mark, what is left, the void's
// deadline). A payment that cannot be reversed here costs no query.
func (s *Service) reverseFacts(ctx context.Context, tx pgx.Tx, p *ReversePlan) (reverseFacts, error) {
	orig := p.Original
	f := reverseFacts{reversible: reversible(orig), terminal: orig.Source == SourceTerminal,
		authorization: orig.Kind == KindAuthorization && orig.Status != StatusCaptured}
	if !f.reversible || f.terminal {
		return f, nil
	}
	children, err := s.ledger.Children(ctx, tx, orig.ID)
	if err != nil {
		return f, err
	}
	var from time.Time
	p.Open, from, f.refunds = childFacts(orig, children)
	if p.LeftCents, err = s.ledger.RefundLeft(ctx, tx, orig); err != nil {
		return f, err
	}
	p.Settled = orig.Details["settled"] == "true"
	p.VoidDeadline = from.Add(VoidWindow)
	f.openVoid, f.settled, f.left = p.Open != nil, p.Settled, p.LeftCents > 0
	f.pastWindow = !s.now().Before(p.VoidDeadline)
	return f, nil
}

// reversible reports an approved (in full or in part, or captured) sale or
// authorization.
func reversible(t *Transaction) bool {
	return (t.Kind == KindSale || t.Kind == KindAuthorization) &&
		(t.Status == StatusApproved || t.Status == StatusPartial || t.Status == StatusCaptured)
}

// childFacts reads what orig's children say: a void of it on its way, when
// its void window starts (the sale, or its capture) and whether it has
// refunds, approved or on their way.
func childFacts(orig *Transaction, children []*Transaction) (open *Transaction, from time.Time, refunds bool) {
	from = orig.CreatedAt
	for _, c := range children {
		switch {
		case c.Kind == KindVoid && c.Status.Open():
			open = c
		case c.Kind == KindCapture && c.Status.Succeeded():
			from = c.CreatedAt
		case c.Kind == KindRefund && (c.Status.Succeeded() || c.Status.Open()):
			refunds = true
		}
	}
	return open, from, refunds
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
	m, err := authorizeAction(ctx, s.merchants, u, merchantID, reverseRight)
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
		return s.rememberSettled(ctx, tx, id, t, callErr)
	})
	return &Result{Transaction: t}, err
}

// reverseRight is the right a reversal needs: to void or to refund (the first
// held), on a merchant that is not suspended.
func reverseRight(m *Merchant) (Permission, error) {
	if err := refusal(m, PermView); err != nil {
		return "", err
	}
	if !m.Can(PermVoid) && !m.Can(PermRefund) {
		return "", apperr.New(apperr.KindForbidden, "%s", msgNoRight(PermRefund))
	}
	p := firstRight(m, PermVoid, PermRefund)
	return p, refusal(m, p) // suspended
}

// rememberSettled marks the original (id) settled when the processor refused the
// reversal t because the payment settled, so that the next plan offers the refund.
func (s *Service) rememberSettled(ctx context.Context, tx pgx.Tx, id uuid.UUID, t *Transaction, callErr error) error {
	if t.Status != StatusFailed || !errors.Is(callErr, upstream.ErrAlreadySettled) {
		return nil
	}
	_, err := tx.Exec(ctx, `UPDATE ledger_transactions SET details = details || '{"settled": "true"}', updated_at = $2 WHERE id = $1`,
		id, s.now().UTC())
	return err
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
