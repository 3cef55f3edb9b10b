package terminals

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/models"
	upstream "github.com/payportal/portal/internal/upstream/terminals"
)

// plan is a checked launch, ready to be stored and sent.
type plan struct {
	launch   *Launch
	loc      Location
	original *Launch // the sale of a void or tip, the saved card of a token sale
}

// Launch starts a transaction on a terminal for u: it checks the user's
// rights, then the request (and the rights again for what it asks), commits the launch (which takes the device: a
// device with an open launch refuses a second one), sends it to the cloud
// once, and hands it to the follower. The returned launch is sending,
// waiting, unknown or not sent; its page follows it from there. The same
// form posted again returns the first launch, sending nothing.
func (s *Service) Launch(ctx context.Context, u *models.User, merchantID uuid.UUID, req LaunchRequest) (*Launch, error) {
	acc, err := s.access(ctx, u, merchantID)
	if err != nil {
		return nil, err
	}
	// Rights first: a person who may not launch this is told so, whatever the form holds.
	if err := acc.mayTry(Kind(strings.TrimSpace(req.Kind))); err != nil {
		return nil, err
	}
	if err := s.configured(); err != nil {
		return nil, err
	}
	token, err := uuid.Parse(strings.TrimSpace(req.FormToken))
	if err != nil {
		return nil, apperr.New(apperr.KindInvalid, "This form has expired: open the launch form again.")
	}
	if l, err := s.sameForm(ctx, merchantID, token); err == nil || !errors.Is(err, models.ErrNotFound) {
		return l, err
	}
	p, err := s.plan(ctx, u, acc, req)
	if err != nil {
		return nil, err
	}
	p.launch.FormToken = token
	if err := acc.mayLaunch(p.launch.Kind, p.launch.Amount(), p.loc); err != nil {
		return nil, err
	}
	// Held as this process's before it is committed, so the lease loop never
	// takes a launch being sent for one whose sender died.
	s.follow.sending(p.launch)
	if err := s.commit(ctx, u, p); err != nil {
		s.follow.forget(p.launch.ID)
		if errors.Is(err, errSameForm) {
			return s.sameForm(ctx, merchantID, token)
		}
		return nil, err
	}
	return s.send(context.WithoutCancel(ctx), p), nil
}

// sameForm returns the launch a form token made before, or
// models.ErrNotFound.
func (s *Service) sameForm(ctx context.Context, merchantID, token uuid.UUID) (*Launch, error) {
	l, err := s.store.LaunchByFormToken(ctx, token)
	if err != nil {
		return nil, err
	}
	if l.MerchantID != merchantID {
		return nil, apperr.New(apperr.KindInvalid, "This form has expired: open the launch form again.")
	}
	return l, nil
}

// commit stores the launch with its payment number, ledger line and audit
// entry, in one transaction; errDeviceBusy becomes a message naming what
// holds the device.
func (s *Service) commit(ctx context.Context, u *models.User, p *plan) error {
	l := p.launch
	now := s.clock.Now()
	l.CreatedAt, l.SentAt, l.State = now, &now, StateSending
	l.Follower, l.LeaseUntil = &s.follow.cfg.Follower, ptr(s.follow.launchLease())
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if l.Kind.Counted() {
			if err := s.store.LockInvoice(ctx, tx, l.MerchantID, l.InvoiceRef); err != nil {
				return err
			}
			n, err := s.store.NextPaymentNumber(ctx, tx, l.MerchantID, l.InvoiceRef)
			if err != nil {
				return err
			}
			l.PaymentNumber, l.TransactionRef = &n, fmt.Sprintf("%s.%d", l.InvoiceRef, n)
		}
		if err := s.store.InsertLaunch(ctx, tx, l); err != nil {
			return err
		}
		if err := s.opened(ctx, tx, l, p.original, u); err != nil {
			return err
		}
		return s.audit(ctx, tx, u, audit.ActionTerminalLaunched, l, "")
	})
	if errors.Is(err, errDeviceBusy) {
		return s.busy(ctx, l.LocationID, l.DeviceName)
	}
	return err
}

// busy words the refusal of a launch on a device that has an open one.
func (s *Service) busy(ctx context.Context, locationID, device string) error {
	open, err := s.store.OpenOnDevice(ctx, nil, locationID, device)
	if err != nil {
		return apperr.New(apperr.KindConflict, "Terminal %s is busy with another transaction: wait for it to finish.", device)
	}
	what := open.Kind.Label()
	if open.AmountCents != nil {
		what += " of " + FormatCents(*open.AmountCents)
	}
	if open.State == StateUnknown {
		return &BusyError{Launch: open, Message: fmt.Sprintf("Terminal %s is locked: the outcome of a %s is unknown. Look at the terminal and say what it showed before launching anything else on it.", device, strings.ToLower(what))}
	}
	return &BusyError{Launch: open, Message: fmt.Sprintf("Terminal %s is busy with a %s: wait for it to finish. Nothing was sent.", device, strings.ToLower(what))}
}

// BusyError refuses a launch on a device that has an open one; Launch is
// that one, so the page links to it.
type BusyError struct {
	Launch  *Launch
	Message string
}

func (e *BusyError) Error() string { return e.Message }

// Unwrap makes a BusyError an apperr conflict (409) for the error handler.
func (e *BusyError) Unwrap() error {
	return &apperr.Error{Kind: apperr.KindConflict, Message: e.Message}
}

// audit records an entry about the merchant and one about the transaction.
func (s *Service) audit(ctx context.Context, tx pgx.Tx, u *models.User, action string, l *Launch, outcome string) error {
	d := audit.TerminalDetails{LaunchID: l.ID.String(), Kind: string(l.Kind), LocationID: l.LocationID,
		Device: l.DeviceName, Reference: l.TransactionRef, Reason: l.Reason, Outcome: outcome}
	if l.AmountCents != nil {
		d.Amount = FormatCents(*l.AmountCents)
	}
	if l.Kind == KindTip {
		d.Tip = FormatCents(l.TipCents()) // and Amount the new total
	}
	now := s.clock.Now()
	subjectTx := l.ID
	if l.LedgerID != nil {
		subjectTx = *l.LedgerID
	}
	for _, sub := range []audit.Subject{{Kind: audit.SubjectMerchant, ID: l.MerchantID}, {Kind: audit.SubjectTransaction, ID: subjectTx}} {
		if err := audit.Record(ctx, tx, audit.Event{Subject: sub, Actor: audit.ActorOf(u), Action: action, Details: d, At: now}); err != nil {
			return err
		}
	}
	return nil
}

// send sends a committed launch to the cloud, once, and records the
// answer: accepted (then followed), refused (nothing reached the device)
// or unknown (it may have).
func (s *Service) send(ctx context.Context, p *plan) *Launch {
	l := p.launch
	start := s.clock.Now()
	launched, err := s.cloud.Launch(ctx, p.loc.Cloud(), l.DeviceName, transactionOf(l, p.original))
	took := s.clock.Now().Sub(start)
	var next *Launch
	var rerr error
	switch {
	case err == nil:
		next, rerr = s.accepted(ctx, l, launched, took)
		if rerr == nil {
			s.follow.watch(next, p.loc.Cloud(), false)
			return next
		}
	case errors.Is(err, upstream.ErrOutcomeUnknown):
		s.log.Warn("terminal launch outcome unknown", "launch_id", l.ID, "err", err)
		next, rerr = s.unknown(ctx, l, problemOfLaunch(err), nil, start)
	default:
		s.log.Info("terminal launch refused", "launch_id", l.ID, "err", err)
		next, rerr = s.refused(ctx, l, problemOfLaunch(err), start)
	}
	s.follow.forget(l.ID)
	if rerr != nil {
		// The lease makes a follower find it sending, and mark it unknown.
		s.log.Error("terminal launch answer not recorded", "launch_id", l.ID, "err", rerr)
		return l
	}
	return next
}

// transactionOf is what the cloud is asked to run for l.
func transactionOf(l *Launch, original *Launch) upstream.Transaction {
	amount := upstream.Amount(l.Amount())
	switch l.Kind {
	case KindTokenSale:
		return upstream.TokenSale(original.CloudID(), amount, l.TransactionRef, l.Cashier)
	case KindReturn:
		return upstream.Return(amount, l.TransactionRef, l.Cashier)
	case KindVoid:
		return upstream.VoidOf(original.CloudID(), l.TransactionRef, l.Cashier)
	case KindSaveCard:
		return upstream.SaveCard(l.TransactionRef, l.Cashier)
	case KindTip:
		return upstream.AddTip(original.CloudID(), amount, l.TransactionRef, l.Cashier)
	}
	return upstream.Sale(amount, l.TransactionRef, l.Cashier)
}
