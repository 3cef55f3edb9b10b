package reminders

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/database"
)

// due is an application a reminder of some kind is due for.
type due struct {
	AppID   uuid.UUID
	OwnerID uuid.UUID
	Episode time.Time
	// Sent counts the reminders of this series so far; the next is number Sent+1.
	Sent int
}

// batchSize bounds what one query of the job reads; the job loops until done.
const batchSize = 500

// notPaused and ownerActive are conditions of every query that finds work.
const (
	notPaused   = `NOT EXISTS (SELECT 1 FROM reminder_pauses p WHERE p.application_id = a.id)`
	ownerActive = `EXISTS (SELECT 1 FROM users u WHERE u.id = a.owner_id AND u.active)`
)

// findDue lists up to batchSize applications a reminder of set.Kind is due for at now,
// after the application given (uuid.Nil to start), in id order; owner narrows it to one
// owner's applications (uuid.Nil for all).
func findDue(ctx context.Context, q database.Querier, set Setting, now time.Time, owner, after uuid.UUID) ([]due, error) {
	st := kindStates[set.Kind]
	rows, err := q.Query(ctx, `SELECT a.id, a.owner_id, `+st.episode+` AS episode, COALESCE(r.n, 0)
		FROM applications a
		LEFT JOIN LATERAL (SELECT count(*)::int AS n, max(sent_at) AS last FROM reminders_sent r
			WHERE r.application_id = a.id AND r.kind = $1 AND r.episode = `+st.episode+`) r ON true
		WHERE a.deleted_at IS NULL AND `+st.cond+` AND `+notPaused+` AND `+ownerActive+`
		  AND `+st.episode+` <= $2
		  AND COALESCE(r.n, 0) < $3
		  AND (COALESCE(r.n, 0) = 0 OR r.last <= $4)
		  AND ($5 = '00000000-0000-0000-0000-000000000000'::uuid OR a.owner_id = $5)
		  AND a.id > $6
		ORDER BY a.id LIMIT $7`,
		string(set.Kind), now.Add(-set.After()), set.MaxSends, now.Add(-set.Interval()), owner, after, batchSize)
	if err != nil {
		return nil, fmt.Errorf("find due %s reminders: %w", set.Kind, err)
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[due])
	if err != nil {
		return nil, fmt.Errorf("find due %s reminders: %w", set.Kind, err)
	}
	return list, nil
}

// stillDue re-reads the application inside tx, under a share lock so that a change of
// its state waits for this transaction, and reports whether it is still in the state of
// the series: unpaused, not deleted, the same episode.
func stillDue(ctx context.Context, tx pgx.Tx, k Kind, id uuid.UUID, episode time.Time) (bool, error) {
	st := kindStates[k]
	var ok bool
	err := tx.QueryRow(ctx, `SELECT true FROM applications a
		WHERE a.id = $1 AND a.deleted_at IS NULL AND `+st.cond+` AND `+st.episode+` = $2 AND `+notPaused+`
		FOR SHARE OF a`, id, episode).Scan(&ok)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("check reminder state: %w", err)
	}
	return ok, nil
}

// claim records reminder number seq of a series inside tx and reports whether this
// transaction is the one that sends it: a run that finds the row already there (another
// run, another instance) sends nothing.
func claim(ctx context.Context, tx pgx.Tx, k Kind, id uuid.UUID, episode time.Time, seq int, now time.Time) (int64, bool, error) {
	recipient := "rep"
	if k.ToMerchant() {
		recipient = "merchant"
	}
	var rowID int64
	err := tx.QueryRow(ctx, `INSERT INTO reminders_sent (application_id, kind, episode, seq, recipient, sent_at)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (application_id, kind, episode, seq) DO NOTHING RETURNING id`,
		id, string(k), episode, seq, recipient, now).Scan(&rowID)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("record reminder: %w", err)
	}
	return rowID, true, nil
}

// setMessage names the outbox message that carried reminders.
func setMessage(ctx context.Context, tx pgx.Tx, rowIDs []int64, messageID uuid.UUID) error {
	_, err := tx.Exec(ctx, `UPDATE reminders_sent SET message_id = $2 WHERE id = ANY($1)`, rowIDs, messageID)
	if err != nil {
		return fmt.Errorf("record reminder message: %w", err)
	}
	return nil
}

// Sent is one reminder as the application's page lists it.
type Sent struct {
	Kind Kind
	// Number is its place in its series (1 for the first).
	Number int
	At     time.Time
	// To is the address it went to; Delivery its outbox state in words.
	To, Delivery string
}

// sentFor lists the reminders of an application, newest first.
func sentFor(ctx context.Context, q database.Querier, id uuid.UUID, limit int) ([]sentRow, error) {
	rows, err := q.Query(ctx, `SELECT r.kind, r.seq, r.sent_at, COALESCE(m.to_address, ''), COALESCE(m.status, ''), COALESCE(m.attempts, 0)
		FROM reminders_sent r LEFT JOIN mail_outbox m ON m.id = r.message_id
		WHERE r.application_id = $1 ORDER BY r.sent_at DESC, r.id DESC LIMIT $2`, id, limit)
	if err != nil {
		return nil, fmt.Errorf("list reminders: %w", err)
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[sentRow])
	if err != nil {
		return nil, fmt.Errorf("list reminders: %w", err)
	}
	return list, nil
}

type sentRow struct {
	Kind     Kind
	Seq      int
	SentAt   time.Time
	To       string
	Status   string
	Attempts int
}

// series counts the reminders of one series and says when the last went out.
func series(ctx context.Context, q database.Querier, k Kind, id uuid.UUID, episode time.Time) (int, *time.Time, error) {
	var n int
	var last *time.Time
	err := q.QueryRow(ctx, `SELECT count(*)::int, max(sent_at) FROM reminders_sent
		WHERE application_id = $1 AND kind = $2 AND episode = $3`, id, string(k), episode).Scan(&n, &last)
	if err != nil {
		return 0, nil, fmt.Errorf("count reminders: %w", err)
	}
	return n, last, nil
}

// pausedAt says when an application's reminders were paused, or nil.
func pausedAt(ctx context.Context, q database.Querier, id uuid.UUID) (*time.Time, error) {
	var at time.Time
	err := q.QueryRow(ctx, `SELECT paused_at FROM reminder_pauses WHERE application_id = $1`, id).Scan(&at)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read reminder pause: %w", err)
	}
	return &at, nil
}

// setPaused pauses or resumes an application's reminders and reports whether that
// changed anything.
func setPaused(ctx context.Context, tx pgx.Tx, id uuid.UUID, paused bool, by uuid.UUID, now time.Time) (bool, error) {
	var sql string
	args := []any{id}
	if paused {
		sql = `INSERT INTO reminder_pauses (application_id, paused_by, paused_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`
		args = append(args, by, now)
	} else {
		sql = `DELETE FROM reminder_pauses WHERE application_id = $1`
	}
	tag, err := tx.Exec(ctx, sql, args...)
	if err != nil {
		return false, fmt.Errorf("pause reminders: %w", err)
	}
	return tag.RowsAffected() > 0, nil
}
