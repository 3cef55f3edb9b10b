package payments

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/models"
)

// Answer applies what became of a transaction still open (pending or
// checking) and adds a.Event to its timeline, in one statement. A transaction
// already answered is left alone and returned with ErrNotOpen, so the request
// and the background check may both answer and only the first counts. When
// the answer succeeds, its effect reaches the original: a void voids it, a
// refund adds to its refunded amount, a capture captures it (its approved
// amount and batch become the capture's), a tip adjustment sets its tip and
// approved amount, in the same transaction.
func (l *Ledger) Answer(ctx context.Context, tx pgx.Tx, id uuid.UUID, a Answer) (*Transaction, error) {
	return l.answer(ctx, tx, id, a)
}

// answerAlone is Answer outside a transaction, for a transaction without an
// original (the update and its timeline entry are one statement, atomic on
// their own): one round trip.
func (l *Ledger) answerAlone(ctx context.Context, t *Transaction, a Answer) (*Transaction, error) {
	if t.ParentID != nil {
		return nil, errors.New("payments: the answer of an operation or refund needs a transaction")
	}
	if l.announcer == nil {
		return l.answer(ctx, l.pool, t.ID, a)
	}
	// The announcement commits with the answer, so it needs a transaction.
	var out *Transaction
	err := l.InTx(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = l.answer(ctx, tx, t.ID, a)
		return err
	})
	return out, err
}

func (l *Ledger) answer(ctx context.Context, q database.Querier, id uuid.UUID, a Answer) (*Transaction, error) {
	now := l.now().UTC()
	var answeredAt *time.Time
	if !a.Status.Open() {
		answeredAt = &now
	}
	details, err := jsonMap(a.Details)
	if err != nil {
		return nil, err
	}
	sealed, err := l.sealBilling(id, Billing{Name: a.BillingName})
	if err != nil {
		return nil, err
	}
	ev := a.Event
	evDetails, err := jsonMap(ev.Details)
	if err != nil {
		return nil, err
	}
	var before Status
	t, err := l.oneAnd(ctx, q, []any{&before}, `WITH prior AS (
		SELECT id AS prior_id, status AS prior_status FROM ledger_transactions
		WHERE id = $1 AND status IN ('pending', 'checking') FOR UPDATE),
	answered AS (
		UPDATE ledger_transactions t SET status = $2,
			kind = COALESCE(NULLIF($3, ''), kind),
			unique_trans_id = COALESCE(NULLIF($4, ''), unique_trans_id),
			upstream_type = COALESCE(NULLIF($5, ''), upstream_type),
			approval_code = COALESCE(NULLIF($6, ''), approval_code),
			result_message = COALESCE(NULLIF($7, ''), result_message),
			avs_code = COALESCE(NULLIF($8, ''), avs_code), cvv_code = COALESCE(NULLIF($9, ''), cvv_code),
			batch_number = COALESCE(NULLIF($10, ''), batch_number),
			approved_cents = COALESCE($11, approved_cents), balance_cents = COALESCE($12, balance_cents),
			tip_cents = COALESCE($13, tip_cents),
			brand = CASE WHEN brand = '' THEN $14 ELSE brand END,
			first6 = CASE WHEN first6 = '' AND last4 = '' THEN $15 ELSE first6 END,
			last4 = CASE WHEN last4 = '' THEN $16 ELSE last4 END,
			billing_sealed = CASE WHEN billing_sealed = '' THEN $17 ELSE billing_sealed END,
			held_for_review = held_for_review OR $18, review_reasons = COALESCE(NULLIF($19, ''), review_reasons),
			details = details || $20::jsonb, answered_at = COALESCE($21, answered_at),
			check_until = COALESCE($22, check_until), updated_at = $23
		FROM prior p WHERE t.id = p.prior_id AND t.status IN ('pending', 'checking')
		RETURNING t.*, p.prior_status),
	e AS (INSERT INTO ledger_events (transaction_id, kind, actor_id, related_id, message, details, at)
		SELECT id, $24::text, $25::uuid, $26::uuid, $27::text, $28::jsonb, $23 FROM answered WHERE $24::text <> '')
	SELECT `+txColumns+`, t.prior_status FROM answered t`,
		id, a.Status, string(a.Kind), a.UniqueTransID, a.UpstreamType, a.ApprovalCode, a.ResultMessage,
		a.AVSCode, a.CVVCode, a.BatchNumber, a.ApprovedCents, a.BalanceCents, a.TipCents,
		a.Card.Brand, a.Card.First6, a.Card.Last4, sealed, a.HeldForReview, a.ReviewReasons, details,
		answeredAt, a.CheckUntil, now,
		string(ev.Kind), ev.ActorID, ev.RelatedID, ev.Message, evDetails)
	if errors.Is(err, models.ErrNotFound) {
		current, gerr := l.ByID(ctx, q, id)
		if gerr != nil {
			return nil, gerr
		}
		return current, ErrNotOpen
	}
	if err != nil {
		return nil, err
	}
	if t.Status.Succeeded() && t.ParentID != nil {
		if err := l.applyToOriginal(ctx, q, t, now); err != nil {
			return nil, err
		}
	}
	if tx, ok := q.(pgx.Tx); ok && l.announcer != nil {
		if err := l.announcer.Answered(ctx, tx, before, t); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// applyToOriginal carries an approved operation or refund to its original.
func (l *Ledger) applyToOriginal(ctx context.Context, q database.Querier, t *Transaction, now time.Time) error {
	var sql string
	var args []any
	switch t.Kind {
	case KindVoid:
		sql = `UPDATE ledger_transactions SET status = 'voided', updated_at = $2
			WHERE id = $1 AND status IN ('approved', 'partial', 'captured')`
		args = []any{*t.ParentID, now}
	case KindRefund:
		sql = `UPDATE ledger_transactions SET refunded_cents = refunded_cents + $2, updated_at = $3 WHERE id = $1`
		args = []any{*t.ParentID, t.ApprovedCents, now}
	case KindCapture:
		sql = `UPDATE ledger_transactions SET status = 'captured', approved_cents = $2, tip_cents = $3,
				batch_number = $4, updated_at = $5 WHERE id = $1 AND status = 'approved'`
		args = []any{*t.ParentID, t.ApprovedCents, t.TipCents, t.BatchNumber, now}
	case KindTipAdjust:
		sql = `UPDATE ledger_transactions SET tip_cents = $2, approved_cents = $3, updated_at = $4 WHERE id = $1`
		args = []any{*t.ParentID, t.TipCents, t.ApprovedCents, now}
	default:
		return nil
	}
	if _, err := q.Exec(ctx, sql, args...); err != nil {
		return fmt.Errorf("update the original of %s: %w", t.ID, err)
	}
	return nil
}

// SetCheckUntil keeps an open transaction's outcome unknown until until (a
// check that found nothing yet pushes nothing; the first unknown sets it).
func (l *Ledger) SetCheckUntil(ctx context.Context, q database.Querier, id uuid.UUID, until time.Time) error {
	_, err := l.on(q).Exec(ctx, `UPDATE ledger_transactions SET check_until = COALESCE(check_until, $2), updated_at = $3
		WHERE id = $1 AND status IN ('pending', 'checking')`, id, until, l.now().UTC())
	if err != nil {
		return fmt.Errorf("set check_until: %w", err)
	}
	return nil
}
