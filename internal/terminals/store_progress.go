package terminals

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/models"
)

// The moves of a launch from state to state. Each is conditional on the
// state it leaves, so two processes recording the same news record it
// once: the second gets errMoved.

// moved reads the launch an UPDATE ... RETURNING gives, or errMoved.
func moved(ctx context.Context, q database.Querier, what, sql string, args ...any) (*Launch, error) {
	l, err := oneLaunch(ctx, q, what, sql+` RETURNING `+launchColumns, args...)
	if errors.Is(err, models.ErrNotFound) {
		return nil, errMoved
	}
	return l, err
}

// Accepted records the cloud's acceptance: the launch waits for its result.
// A launch marked unknown because its sender seemed gone takes the late
// answer too.
func (s *Store) Accepted(ctx context.Context, q database.Querier, id uuid.UUID, cloudID string, launchedAt time.Time) (*Launch, error) {
	return moved(ctx, s.On(q), "record terminal launch accepted", `UPDATE terminal_launches
		SET state = 'waiting', unique_trans_id = $2, launched_at = $3, problem = ''
		WHERE id = $1 AND (state = 'sending' OR (state = 'unknown' AND unique_trans_id IS NULL))`, id, cloudID, launchedAt)
}

// Refused records a launch the cloud refused: nothing reached the device.
func (s *Store) Refused(ctx context.Context, q database.Querier, id uuid.UUID, problem string, at time.Time) (*Launch, error) {
	return moved(ctx, s.On(q), "record terminal launch refused", `UPDATE terminal_launches
		SET state = 'not_sent', resolution = 'refused', problem = $2, finished_at = $3, follower = NULL, lease_until = NULL
		WHERE id = $1 AND state = 'sending'`, id, problem, at)
}

// Unknown records that the launch's outcome is unknown. recheckUntil, when
// set, asks the followers to recheck its result slowly until then.
func (s *Store) Unknown(ctx context.Context, q database.Querier, id uuid.UUID, problem string, recheckUntil *time.Time) (*Launch, error) {
	return moved(ctx, s.On(q), "record terminal launch unknown", `UPDATE terminal_launches
		SET state = 'unknown', problem = $2, recheck_until = $3
		WHERE id = $1 AND state IN ('sending', 'waiting')`, id, problem, recheckUntil)
}

// Outcome is the result of a launch as it is recorded.
type Outcome struct {
	State          State
	Resolution     Resolution
	ResolvedBy     *uuid.UUID
	At             time.Time
	Polls          int
	ResultMessage  string
	ApprovalNumber string
	MaskedAccount  string
	CardBrand      string
	EntryMethod    string
	ProcessedCents *int64
	TippedCents    *int64
	AdjustedCents  *int64
	BatchNumber    string
	Duplicate      bool
	Problem        string
}

// Finish records the outcome of a waiting or unknown launch, which frees
// its device.
func (s *Store) Finish(ctx context.Context, q database.Querier, id uuid.UUID, o Outcome) (*Launch, error) {
	return moved(ctx, s.On(q), "record terminal launch outcome", `UPDATE terminal_launches
		SET state = $2, resolution = $3, resolved_by = $4, finished_at = $5, polls = polls + $6, result_message = $7,
			approval_number = $8, masked_account = $9, card_brand = $10, entry_method = $11, processed_cents = $12,
			tipped_cents = $13, adjusted_cents = $14, batch_number = $15, duplicate = $16, problem = $17,
			follower = NULL, lease_until = NULL, recheck_until = NULL
		WHERE id = $1 AND state IN ('waiting', 'unknown')`,
		id, o.State, o.Resolution, o.ResolvedBy, o.At, o.Polls, o.ResultMessage, o.ApprovalNumber, o.MaskedAccount,
		o.CardBrand, o.EntryMethod, o.ProcessedCents, o.TippedCents, o.AdjustedCents, o.BatchNumber, o.Duplicate, o.Problem)
}

// Resent closes an unknown launch that a person sends again: the new
// launch takes its device.
func (s *Store) Resent(ctx context.Context, q database.Querier, id, by uuid.UUID, at time.Time) (*Launch, error) {
	return moved(ctx, s.On(q), "record terminal launch resent", `UPDATE terminal_launches
		SET state = 'resent', resolution = 'resent', resolved_by = $2, finished_at = $3, follower = NULL,
			lease_until = NULL, recheck_until = NULL
		WHERE id = $1 AND state = 'unknown'`, id, by, at)
}

// SetLedger records the ledger transaction of a launch.
func (s *Store) SetLedger(ctx context.Context, q database.Querier, id, ledgerID uuid.UUID) error {
	if _, err := s.On(q).Exec(ctx, `UPDATE terminal_launches SET ledger_id = $2 WHERE id = $1`, id, ledgerID); err != nil {
		return errors.Join(errors.New("record ledger id"), err)
	}
	return nil
}

// The followers' leases. A process follows the launches whose follower it
// is while their lease runs; it renews them every few seconds, and takes
// over those whose lease ran out (their process died).

// RenewLeases extends the leases follower holds to until and returns the
// ids it still holds (another process may have taken one over).
func (s *Store) RenewLeases(ctx context.Context, follower string, until time.Time) (map[uuid.UUID]bool, error) {
	rows, err := s.Pool.Query(ctx, `UPDATE terminal_launches SET lease_until = $2
		WHERE follower = $1 AND state IN ('sending', 'waiting', 'unknown') RETURNING id`, follower, until)
	if err != nil {
		return nil, errors.Join(errors.New("renew terminal leases"), err)
	}
	ids, err := collectIDs(rows)
	if err != nil {
		return nil, errors.Join(errors.New("renew terminal leases"), err)
	}
	held := make(map[uuid.UUID]bool, len(ids))
	for _, id := range ids {
		held[id] = true
	}
	return held, nil
}

// ClaimExpired takes over, for follower until until, up to limit open
// launches whose lease ran out by now and that need following: sending or
// waiting ones, and unknown ones whose result is still rechecked.
func (s *Store) ClaimExpired(ctx context.Context, follower string, until, now time.Time, limit int) ([]*Launch, error) {
	return launches(ctx, s.Pool, "claim terminal launches", `UPDATE terminal_launches SET follower = $1, lease_until = $2
		WHERE id IN (SELECT id FROM terminal_launches
			WHERE state IN ('sending', 'waiting', 'unknown') AND (lease_until IS NULL OR lease_until < $3)
			  AND (state <> 'unknown' OR (unique_trans_id IS NOT NULL AND recheck_until > $3))
			ORDER BY created_at LIMIT $4 FOR UPDATE SKIP LOCKED)
		RETURNING `+launchColumns, follower, until, now, limit)
}

// ReleaseLeases ends follower's leases at now, so that the next process
// (a restart, another instance) takes its launches over at once.
func (s *Store) ReleaseLeases(ctx context.Context, follower string, now time.Time) error {
	_, err := s.Pool.Exec(ctx, `UPDATE terminal_launches SET lease_until = $2
		WHERE follower = $1 AND state IN ('sending', 'waiting', 'unknown')`, follower, now)
	if err != nil {
		return errors.Join(errors.New("release terminal leases"), err)
	}
	return nil
}

// StopRecheck ends the rechecks of an unknown launch: it waits for a person.
func (s *Store) StopRecheck(ctx context.Context, id uuid.UUID) error {
	_, err := s.Pool.Exec(ctx, `UPDATE terminal_launches SET recheck_until = NULL, follower = NULL, lease_until = NULL
		WHERE id = $1 AND state = 'unknown'`, id)
	if err != nil {
		return errors.Join(errors.New("stop terminal recheck"), err)
	}
	return nil
}
