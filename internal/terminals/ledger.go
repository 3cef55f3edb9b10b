package terminals

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/payments"
)

// Ledger is what the room needs of the payments ledger (payments.Ledger):
// terminal transactions join the keyed payments in one list, one batch
// view, one export and one timeline per transaction. Every write runs in
// the room's own transaction, so a launch and its ledger line change
// together.
type Ledger interface {
	Record(ctx context.Context, q database.Querier, n payments.NewTransaction) (*payments.Transaction, error)
	RecordRefund(ctx context.Context, tx pgx.Tx, n payments.NewTransaction) (*payments.Transaction, error)
	Answer(ctx context.Context, tx pgx.Tx, id uuid.UUID, a payments.Answer) (*payments.Transaction, error)
	AddEvent(ctx context.Context, q database.Querier, e payments.Event) error
	List(ctx context.Context, q database.Querier, f payments.Filter) (*payments.Page, error)
}

// The timeline entries the room adds to the ledger's.
const (
	eventLaunched   payments.EventKind = "terminal_launched"
	eventAcceptedBy payments.EventKind = "terminal_accepted"
	eventResent     payments.EventKind = "terminal_resent"
	eventConfirmed  payments.EventKind = "terminal_confirmed"
	eventDuplicate  payments.EventKind = "terminal_duplicate"
	eventCancelled  payments.EventKind = "cancelled_at_terminal"
)

// ledgerKind is the ledger's kind of a launch.
func ledgerKind(k Kind) payments.Kind {
	switch k {
	case KindReturn:
		return payments.KindRefund
	case KindVoid:
		return payments.KindVoid
	case KindSaveCard:
		return payments.KindSaveMethod
	case KindTip:
		return payments.KindTipAdjust
	}
	return payments.KindSale
}

// opened records a new launch in the ledger, under the launch's own id: a
// void or tip as an operation on its sale's line, a return linked to a sale
// as a refund capped at what is left of it.
func (s *Service) opened(ctx context.Context, tx pgx.Tx, l *Launch, original *Launch, u *models.User) error {
	n := payments.NewTransaction{ID: l.ID, MerchantID: l.MerchantID, Source: payments.SourceTerminal, Kind: ledgerKind(l.Kind),
		Reference: l.TransactionRef, LocationID: l.LocationID, DeviceName: l.DeviceName, CreatedBy: &u.ID,
		Details: map[string]string{"terminal_launch": l.ID.String(), "cashier": l.Cashier},
		Event:   payments.Event{Kind: eventLaunched, Message: "Launched on terminal " + l.DeviceName + " by " + u.DisplayName() + "."}}
	switch l.Kind {
	case KindSale, KindTokenSale, KindReturn:
		n.AmountCents = l.Amount()
	case KindTip:
		n.TipCents = l.TipCents()
	}
	if l.Reason != "" {
		n.Details["reason"] = l.Reason
		n.Event.Message = l.Kind.Label() + " launched on terminal " + l.DeviceName + " by " + u.DisplayName() + "; reason: " + l.Reason + "."
	}
	if l.Kind == KindTokenSale {
		n.Details["saved_card"] = "true"
	}
	if original != nil && (l.Kind == KindVoid || l.Kind == KindTip) {
		n.ParentID = original.LedgerID
	}
	var err error
	if l.Kind == KindReturn && l.LinkedLedgerID != nil {
		n.ParentID = l.LinkedLedgerID
		_, err = s.ledger.RecordRefund(ctx, tx, n)
	} else {
		_, err = s.ledger.Record(ctx, tx, n)
	}
	var capErr *payments.RefundCapError
	switch {
	case errors.As(err, &capErr):
		return apperr.Invalid("amount", "At most "+FormatCents(capErr.LeftCents)+" of that sale is left to return.")
	case errors.Is(err, models.ErrNotFound):
		return apperr.Invalid("linked", "Choose one of this merchant's sales.")
	case err != nil:
		return err
	}
	l.LedgerID = &l.ID
	return s.store.SetLedger(ctx, tx, l.ID, l.ID)
}

// changed passes a launch's new state to its ledger line, with message as
// the timeline's entry, by a person (nil: the portal), and announces it when it
// finished.
func (s *Service) changed(ctx context.Context, tx pgx.Tx, l *Launch, message string, by *uuid.UUID) error {
	if err := s.announce(ctx, tx, l); err != nil {
		return err
	}
	if l.LedgerID == nil {
		return nil
	}
	id := *l.LedgerID
	ev := payments.Event{Message: message, ActorID: by}
	switch l.State {
	case StateWaiting, StateSending:
		ev.Kind, ev.TransactionID = eventAcceptedBy, id
		return s.ledger.AddEvent(ctx, tx, ev)
	case StateResent:
		ev.Kind, ev.TransactionID = eventResent, id
		return s.ledger.AddEvent(ctx, tx, ev)
	}
	a := answerOf(l)
	if by != nil {
		ev.Kind = eventConfirmed
	} else if ev.Kind == "" {
		ev.Kind = a.Event.Kind
	}
	a.Event = ev
	_, err := s.ledger.Answer(ctx, tx, id, a)
	if errors.Is(err, payments.ErrNotOpen) {
		s.log.Warn("terminal launch's ledger line already answered", "launch_id", l.ID, "ledger_id", id, "state", l.State)
		return nil
	}
	return err
}

// answerOf is the ledger's answer for a launch's state.
func answerOf(l *Launch) payments.Answer {
	a := payments.Answer{UniqueTransID: l.CloudID(), UpstreamType: upstreamType(l.Kind), ApprovalCode: l.ApprovalNumber,
		ResultMessage: l.ResultMessage, BatchNumber: l.BatchNumber,
		Card: payments.Card{Brand: brandOrEmpty(l.CardBrand, l.Last4()), Last4: l.Last4()}}
	switch l.State {
	case StateUnknown:
		a.Status, a.ResultMessage, a.Event.Kind = payments.StatusChecking, l.Problem, payments.EventUnknown
	case StateNotSent:
		a.Status, a.ResultMessage, a.Event.Kind = payments.StatusFailed, l.Problem, payments.EventFailed
	case StateDeclined:
		a.Status, a.Event.Kind = payments.StatusDeclined, payments.EventDeclined
	case StateCancelled, StateTimedOut, StateCardRemoved:
		a.Status, a.Event.Kind = payments.StatusCancelled, eventCancelled
	case StateApproved:
		approvedAnswer(l, &a)
	}
	return a
}

// approvedAnswer fills the answer of an approved launch. A duplicate that
// is not the resend of its own unknown line charged nothing: its line says
// so and counts no money.
func approvedAnswer(l *Launch, a *payments.Answer) {
	a.Status, a.Event.Kind = payments.StatusApproved, payments.EventApproved
	processed := deref(l.ProcessedCents)
	switch l.Kind {
	case KindTip:
		tip := deref(l.TippedCents)
		if l.TippedCents == nil {
			tip = l.TipCents()
		}
		a.TipCents, a.ApprovedCents, a.Event.Kind = &tip, &processed, payments.EventTipAdjusted
	case KindVoid:
		a.ApprovedCents, a.Event.Kind = &processed, payments.EventVoided
	case KindSaveCard:
		a.Event.Kind = payments.EventMethodSaved
	default:
		a.ApprovedCents = &processed
	}
	if l.Duplicate && l.ResendOf == nil {
		zero := int64(0)
		a.Status, a.ApprovedCents, a.Event.Kind = payments.StatusNotCharged, &zero, eventDuplicate
		a.Details = map[string]string{"duplicate": "true"}
	}
}

// upstreamType is the cloud's transaction type of a kind.
func upstreamType(k Kind) string {
	switch k {
	case KindReturn:
		return "CreditReturn"
	case KindVoid:
		return "Void"
	case KindSaveCard:
		return "CreditSaveCard"
	case KindTip:
		return "CreditAddTip"
	}
	return "CreditSale"
}

func brandOrEmpty(code, last4 string) string {
	if last4 == "" && code == "" {
		return ""
	}
	return BrandName(code)
}
