package payments

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/models"
	upstream "github.com/payportal/portal/internal/upstream/payments"
)

// CaptureForm captures an authorization, for its amount or less, with an
// optional tip.
type CaptureForm struct {
	FormToken string `form:"form_token"`
	Amount    string `form:"amount"`
	Tip       string `form:"tip"`
}

// Capture captures an authorization (tokenizedForce): it goes into the open
// batch and settles with it.
func (s *Service) Capture(ctx context.Context, u *models.User, merchantID, id uuid.UUID, f *CaptureForm) (*Result, error) {
	m, err := authorize(ctx, s.merchants, u, merchantID, PermCaptureAdjust)
	if err != nil {
		return nil, err
	}
	tid, earlier, err := s.readToken(ctx, m, u, f.FormToken, PurposeCapture(id))
	if err != nil || earlier != nil {
		return &Result{Transaction: earlier, Repeated: true}, err
	}
	errs := apperr.FieldErrors{}
	amount, msg := ParseAmount(f.Amount)
	if msg != "" {
		errs.Add("amount", msg)
	}
	tip, msg := parseOptionalAmount(f.Tip)
	if msg != "" {
		errs.Add("tip", msg)
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	var target string
	in := intent{n: NewTransaction{ID: tid, MerchantID: m.ID, Kind: KindCapture, ParentID: &id, AmountCents: amount,
		TipCents: tip, CreatedBy: &u.ID}, audit: audit.ActionCaptureRequested}
	in.before = func(tx pgx.Tx) error {
		orig, err := s.lockOpenOriginal(ctx, tx, m.ID, id)
		if err != nil {
			return err
		}
		switch {
		case orig.Kind != KindAuthorization || orig.Status != StatusApproved:
			return apperr.New(apperr.KindConflict, "Only an authorization not yet captured or released can be captured.")
		case amount > orig.AmountCents:
			return apperr.Invalid("amount", "At most the authorized "+FormatCents(orig.AmountCents)+" can be captured.")
		}
		target, in.original = orig.UniqueTransID, orig
		in.n.Source, in.n.Card, in.n.CustomerID, in.n.Reference = orig.Source, orig.Card, orig.CustomerID, orig.Reference
		in.n.Event = Event{Kind: EventCaptureRequested, Message: "Capture of " + FormatCents(amount+tip) + " sent to the processor"}
		return nil
	}
	t, repeated, err := s.record(ctx, u, m, &in)
	if err != nil || repeated {
		return &Result{Transaction: t, Repeated: repeated}, err
	}
	req := upstream.Force{Ref: s.ref(t, u), UniqueTransID: target, Amount: upstream.Cents(amount), TipAmount: optionalCents(tip)}
	ut, callErr := s.call(ctx, func(cctx context.Context) (*upstream.Transaction, error) { return s.up.Force(cctx, m.Account, req) })
	t, err = s.finish(ctx, t, ut, callErr, nil)
	return &Result{Transaction: t}, err
}

// TipForm sets a sale's tip.
type TipForm struct {
	FormToken string `form:"form_token"`
	Tip       string `form:"tip"`
}

// AdjustTip changes the tip of an unsettled card sale (SaleAdjust): the new
// tip replaces the old one.
func (s *Service) AdjustTip(ctx context.Context, u *models.User, merchantID, id uuid.UUID, f *TipForm) (*Result, error) {
	m, err := authorize(ctx, s.merchants, u, merchantID, PermCaptureAdjust)
	if err != nil {
		return nil, err
	}
	tid, earlier, err := s.readToken(ctx, m, u, f.FormToken, PurposeTip(id))
	if err != nil || earlier != nil {
		return &Result{Transaction: earlier, Repeated: true}, err
	}
	if strings.TrimSpace(f.Tip) == "" {
		return nil, apperr.Invalid("tip", "Enter the new tip (0 for none).")
	}
	tip, msg := parseOptionalAmount(f.Tip)
	if msg != "" {
		return nil, apperr.Invalid("tip", msg)
	}
	var target string
	in := intent{n: NewTransaction{ID: tid, MerchantID: m.ID, Kind: KindTipAdjust, ParentID: &id, TipCents: tip,
		CreatedBy: &u.ID}, audit: audit.ActionTipRequested}
	in.before = func(tx pgx.Tx) error {
		orig, err := s.lockOpenOriginal(ctx, tx, m.ID, id)
		if err != nil {
			return err
		}
		switch {
		case !tipAdjustable(orig):
			return apperr.New(apperr.KindConflict, "Only a fully approved card sale that is not voided can have its tip adjusted.")
		case orig.AmountCents+tip > MaxAmountCents:
			return apperr.Invalid("tip", "The amount and tip together can be at most "+FormatCents(MaxAmountCents)+".")
		case orig.AmountCents+tip < orig.RefundedCents:
			return apperr.Invalid("tip", "The sale has refunds of "+FormatCents(orig.RefundedCents)+": the total cannot go below them.")
		}
		if target, err = s.reverseTarget(ctx, tx, orig); err != nil {
			return err
		}
		in.original = orig
		in.n.Source, in.n.Card, in.n.CustomerID, in.n.Reference = orig.Source, orig.Card, orig.CustomerID, orig.Reference
		in.n.AmountCents = orig.AmountCents
		in.n.Event = Event{Kind: EventTipRequested, Message: fmt.Sprintf("Tip change from %s to %s sent to the processor",
			FormatCents(orig.TipCents), FormatCents(tip))}
		return nil
	}
	t, repeated, err := s.record(ctx, u, m, &in)
	if err != nil || repeated {
		return &Result{Transaction: t, Repeated: repeated}, err
	}
	req := upstream.Adjustment{Ref: s.ref(t, u), UniqueTransID: target, Type: upstream.SaleAdjust, TipAmount: upstream.Cents(tip)}
	ut, callErr := s.call(ctx, func(cctx context.Context) (*upstream.Transaction, error) { return s.up.Adjust(cctx, m.Account, req) })
	t, err = s.finish(ctx, t, ut, callErr, nil)
	return &Result{Transaction: t}, err
}

// lockOpenOriginal locks an original and refuses it while an operation or
// reversal of it is on its way.
func (s *Service) lockOpenOriginal(ctx context.Context, tx pgx.Tx, merchantID, id uuid.UUID) (*Transaction, error) {
	orig, err := s.ledger.Lock(ctx, tx, merchantID, id)
	if err != nil {
		return nil, err
	}
	var open int
	if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM ledger_transactions WHERE parent_id = $1 AND status IN ('pending', 'checking')`,
		id).Scan(&open); err != nil {
		return nil, fmt.Errorf("count open operations: %w", err)
	}
	if open > 0 {
		return nil, apperr.New(apperr.KindConflict, "Another change to this payment is on its way. Wait for its answer.")
	}
	return orig, nil
}

// tipAdjustable reports a transaction whose tip may change: a card sale
// approved in full, or a captured card authorization.
func tipAdjustable(t *Transaction) bool {
	return t.Source == SourceCard && (t.Kind == KindSale && t.Status == StatusApproved ||
		t.Kind == KindAuthorization && t.Status == StatusCaptured)
}
