package terminals

import (
	"context"
	"errors"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/httpx"
	"github.com/payportal/portal/internal/models"
)

// ConfirmRequest is what a person says an unknown launch's terminal showed.
type ConfirmRequest struct {
	// Outcome is approved, declined or cancelled ("cancelled, or nothing
	// happened").
	Outcome string `form:"outcome"`
	// Approval is the approval code the terminal or receipt showed, if any.
	Approval string `form:"approval"`
}

// confirmable maps the choices of the confirm form to states.
var confirmable = map[string]State{"approved": StateApproved, "declined": StateDeclined, "cancelled": StateCancelled}

// Confirm records what the terminal showed for an unknown launch, on a
// person's word: it frees the device, and the ledger and the audit trail
// say who said so.
func (s *Service) Confirm(ctx context.Context, u *models.User, merchantID, id uuid.UUID, req ConfirmRequest) (*Launch, error) {
	acc, err := s.access(ctx, u, merchantID)
	if err != nil {
		return nil, err
	}
	if !acc.Staff && !acc.UseTerminals {
		return nil, errForbidden("You do not have the right to use this merchant's terminals.")
	}
	state, ok := confirmable[req.Outcome]
	if !ok {
		return nil, apperr.Invalid("outcome", "Choose what the terminal showed.")
	}
	approval, ok := cleanText(req.Approval)
	if !ok || len(approval) > 20 {
		return nil, apperr.Invalid("approval", "Use at most 20 characters.")
	}
	var l *Launch
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		cur, err := s.store.LaunchForUpdate(ctx, tx, id)
		if err != nil || cur.MerchantID != merchantID {
			return models.ErrNotFound
		}
		if cur.State != StateUnknown {
			return apperr.New(apperr.KindConflict, "This transaction is no longer unknown: it was %s.", strings.ToLower(cur.State.Label()))
		}
		o := Outcome{State: state, Resolution: ResolvedByUser, ResolvedBy: &u.ID, At: s.clock.Now(),
			ResultMessage: "Confirmed by " + u.DisplayName(), ApprovalNumber: approval, Problem: cur.Problem}
		if state == StateApproved && cur.AmountCents != nil {
			o.ProcessedCents = cur.AmountCents
		}
		if l, err = s.store.Finish(ctx, tx, id, o); err != nil {
			return err
		}
		if err := s.audit(ctx, tx, u, audit.ActionTerminalConfirmed, l, string(state)); err != nil {
			return err
		}
		return s.changed(ctx, tx, l, u.DisplayName()+" said the terminal showed: "+strings.ToLower(state.Label())+".", &u.ID)
	})
	if err != nil {
		return nil, err
	}
	s.follow.forget(id)
	return l, nil
}

// ResendRequest is a person's request to send an unknown launch again.
type ResendRequest struct {
	FormToken string `form:"form_token"`
	// Understood: the person read the warning.
	Understood httpx.Checkbox `form:"understood"`
}

// Resend sends an unknown launch again with the same reference, amount and
// device, on a person's explicit word. If the first one was approved, the
// terminal's duplicate detection answers with that approval instead of
// charging again, provided the same card is presented. The first launch
// ends as resent; the new one takes the device.
func (s *Service) Resend(ctx context.Context, u *models.User, merchantID, id uuid.UUID, req ResendRequest) (*Launch, error) {
	acc, err := s.access(ctx, u, merchantID)
	if err != nil {
		return nil, err
	}
	// Rights first, before the form is read: someone who may launch nothing is refused
	// before the launch is even looked up, then the launch's own kind is checked.
	if err := acc.mayTry(""); err != nil {
		return nil, err
	}
	old, err := s.store.MerchantLaunch(ctx, merchantID, id)
	if err != nil {
		return nil, err
	}
	loc, ok := acc.Merchant.Location(old.LocationID)
	if !ok {
		return nil, models.ErrNotFound
	}
	if err := acc.mayLaunch(old.Kind, old.Amount(), loc); err != nil {
		return nil, err
	}
	if err := s.configured(); err != nil {
		return nil, err
	}
	token, err := uuid.Parse(strings.TrimSpace(req.FormToken))
	if err != nil {
		return nil, apperr.New(apperr.KindInvalid, "This form has expired: reload the page.")
	}
	if l, err := s.sameForm(ctx, merchantID, token); err == nil || !errors.Is(err, models.ErrNotFound) {
		return l, err
	}
	if !req.Understood {
		return nil, apperr.Invalid("understood", "Tick the box to confirm that the terminal shows no result for this transaction.")
	}
	p := &plan{launch: resendOf(old, u, token), loc: loc}
	if old.OriginalID != nil {
		if p.original, err = s.store.Launch(ctx, nil, *old.OriginalID); err != nil {
			return nil, err
		}
	}
	s.follow.sending(p.launch)
	if err := s.commitResend(ctx, u, old, p); err != nil {
		s.follow.forget(p.launch.ID)
		if errors.Is(err, errSameForm) {
			return s.sameForm(ctx, merchantID, token)
		}
		return nil, err
	}
	s.follow.forget(old.ID)
	return s.send(context.WithoutCancel(ctx), p), nil
}

// resendOf copies an unknown launch into a new one: same kind, amount,
// references, device and links.
func resendOf(old *Launch, u *models.User, token uuid.UUID) *Launch {
	return &Launch{ID: uuid.New(), MerchantID: old.MerchantID, LocationID: old.LocationID, DeviceName: old.DeviceName,
		Kind: old.Kind, AmountCents: old.AmountCents, BaseCents: old.BaseCents, InvoiceRef: old.InvoiceRef,
		PaymentNumber: old.PaymentNumber, TransactionRef: old.TransactionRef, Cashier: old.Cashier,
		OriginalID: old.OriginalID, LinkedLedgerID: old.LinkedLedgerID, ResendOf: &old.ID, Reason: old.Reason,
		TestMode: old.TestMode, FormToken: token, CreatedBy: u.ID}
}

// commitResend closes the unknown launch and stores its resend in one
// transaction, so the device passes from one to the other.
func (s *Service) commitResend(ctx context.Context, u *models.User, old *Launch, p *plan) error {
	l := p.launch
	now := s.clock.Now()
	l.CreatedAt, l.SentAt, l.State = now, &now, StateSending
	l.Follower, l.LeaseUntil = &s.follow.cfg.Follower, ptr(s.follow.launchLease())
	return s.inTx(ctx, func(tx pgx.Tx) error {
		closed, err := s.store.Resent(ctx, tx, old.ID, u.ID, now)
		if errors.Is(err, errMoved) {
			return apperr.New(apperr.KindConflict, "This transaction is no longer unknown: reload the page to see what happened.")
		}
		if err != nil {
			return err
		}
		if err := s.changed(ctx, tx, closed, u.DisplayName()+" sent it again.", &u.ID); err != nil {
			return err
		}
		if err := s.store.InsertLaunch(ctx, tx, l); err != nil {
			if errors.Is(err, errDeviceBusy) {
				return s.busy(ctx, l.LocationID, l.DeviceName)
			}
			return err
		}
		// The resend answers the same ledger line: one intent, one line.
		l.LedgerID = old.LedgerID
		if l.LedgerID != nil {
			if err := s.store.SetLedger(ctx, tx, l.ID, *l.LedgerID); err != nil {
				return err
			}
		}
		return s.audit(ctx, tx, u, audit.ActionTerminalResent, l, "")
	})
}
