package payments

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/models"
)

// intent is a transaction about to be sent, with what to do in the same
// database transaction as recording it.
type intent struct {
	n NewTransaction
	// dupSource, when set, runs the soft duplicate check on the card's last
	// four and the total (confirmed: the user chose "charge again").
	dupSource Source
	confirmed bool
	audit     string // the audit action
	also      func(tx pgx.Tx, t *Transaction) error
	// refund records a linked refund: RecordRefund locks the original and
	// caps it.
	refund bool
	// before runs first in the database transaction (it may fill n).
	before func(tx pgx.Tx) error
	// original is the payment an operation or refund concerns, which before
	// loads: the history names it ("voided a sale", not "voided a void").
	original *Transaction
}

// record stores the intent, its check job and its audit entries in one
// database transaction, committed before the upstream call.
func (s *Service) record(ctx context.Context, u *models.User, m *Merchant, in *intent) (*Transaction, bool, error) {
	var t *Transaction
	repeated := false
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := s.prepare(ctx, tx, m, in); err != nil {
			return err
		}
		var err error
		t, err = s.store(ctx, tx, in)
		if errors.Is(err, ErrAlreadyRecorded) {
			repeated = true
			return nil
		}
		if err != nil {
			return err
		}
		return s.follow(ctx, tx, u, t, in)
	})
	return t, repeated, err
}

// prepare runs what comes before the intent is stored: the intent's own first
// step (in.before) and the duplicate check, which refuses a payment like one
// made moments ago with a *DuplicateError.
func (s *Service) prepare(ctx context.Context, tx pgx.Tx, m *Merchant, in *intent) error {
	if in.before != nil {
		if err := in.before(tx); err != nil {
			return err
		}
	}
	if in.dupSource == "" {
		return nil
	}
	earlier, err := s.duplicateOf(ctx, tx, m.ID, in)
	if err == nil && earlier != nil {
		return &DuplicateError{Earlier: earlier}
	}
	return err
}

// store records the intent in the ledger: a linked refund under its original's
// lock and cap, anything else as it is.
func (s *Service) store(ctx context.Context, tx pgx.Tx, in *intent) (*Transaction, error) {
	if in.refund {
		return s.ledger.RecordRefund(ctx, tx, in.n)
	}
	return s.ledger.Record(ctx, tx, in.n)
}

// follow writes what comes with a stored intent in its database transaction: the
// "charged again" event, the check job, the intent's own step (in.also) and the
// audit entries.
func (s *Service) follow(ctx context.Context, tx pgx.Tx, u *models.User, t *Transaction, in *intent) error {
	if in.dupSource != "" && in.confirmed {
		if err := s.ledger.AddEvent(ctx, tx, Event{TransactionID: t.ID, Kind: EventDuplicateConfirmed, ActorID: &u.ID,
			Message: "Charged again after the duplicate warning"}); err != nil {
			return err
		}
	}
	if err := s.scheduleCheck(ctx, tx, t.ID); err != nil {
		return err
	}
	if in.also != nil {
		if err := in.also(tx, t); err != nil {
			return err
		}
	}
	note := ""
	if in.confirmed {
		note = "after a duplicate warning"
	}
	return s.auditBoth(ctx, tx, u, t, in, note)
}

// duplicateOf takes the lock of in's card and total, then (unless the user
// confirmed "charge again") finds a payment like in's made within the
// duplicate window. The lock and the query are two statements sent as one
// batch, in that order: under READ COMMITTED each statement takes its own
// snapshot when it starts, and PostgreSQL starts the query only once the lock
// is granted, so the query sees the payment of whoever held the lock before
// (committed by then). One query with the lock inside it would not: its
// snapshot would be taken before the lock waited.
func (s *Service) duplicateOf(ctx context.Context, tx pgx.Tx, merchantID uuid.UUID, in *intent) (*Transaction, error) {
	b := &pgx.Batch{}
	key := fmt.Sprintf("dup:%s:%s:%d", merchantID, in.n.Card.Last4, in.n.AmountCents+in.n.TipCents)
	b.Queue(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, key)
	query := !in.confirmed && in.n.Card.Last4 != ""
	if query {
		since := s.now().Add(-s.cfg.DuplicateWindow)
		b.Queue(`SELECT `+txColumns+` FROM ledger_transactions t
		WHERE t.merchant_id = $1 AND t.last4 = $2 AND t.amount_cents + t.tip_cents = $3 AND t.source = $4
			AND t.kind IN ('sale', 'authorization') AND t.created_at >= $5 AND t.id <> $6
			AND t.status NOT IN ('declined', 'failed', 'not_charged', 'voided', 'cancelled')
		ORDER BY t.created_at DESC LIMIT 1`,
			merchantID, in.n.Card.Last4, in.n.AmountCents+in.n.TipCents, string(in.dupSource), since, in.n.ID)
	}
	br := tx.SendBatch(ctx, b)
	defer br.Close()
	if _, err := br.Exec(); err != nil {
		return nil, fmt.Errorf("duplicate lock: %w", err)
	}
	if !query {
		return nil, br.Close()
	}
	list, err := s.ledger.collect(br.Query())
	if err == nil {
		err = br.Close()
	}
	if err != nil || len(list) == 0 {
		return nil, err
	}
	return list[0], nil
}

// auditBoth records in's action on the transaction's trail and its merchant's.
func (s *Service) auditBoth(ctx context.Context, tx pgx.Tx, u *models.User, t *Transaction, in *intent, note string) error {
	action := in.audit
	if action == "" {
		return nil
	}
	d := audit.PaymentDetails{TransactionID: t.ID.String(), What: t.KindLabel(), Amount: FormatCents(t.TotalCents()),
		Card: t.Card.Label(), Reference: t.Reference, Note: note}
	if in.original != nil {
		d.Of = in.original.KindLabel()
	}
	switch t.Kind {
	case KindSaveMethod:
		d.Amount = ""
	case KindTipAdjust:
		d.Tip = FormatCents(t.TipCents) // and Amount the new total
	}
	at := s.now().UTC()
	return audit.RecordAll(ctx, tx,
		audit.Event{Subject: audit.Transaction(t.ID), Actor: audit.ActorOf(u), Action: action, Details: d, At: at},
		audit.Event{Subject: audit.Merchant(t.MerchantID), Actor: audit.ActorOf(u), Action: action, Details: d, At: at})
}
