package terminals

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	upstream "github.com/payportal/portal/internal/upstream/terminals"
)

// The records of a launch's progress. Each runs in one transaction with
// the device's health and the ledger's line, and each is conditional on
// the state it leaves (errMoved when another process recorded it first).

// accepted records the cloud's acceptance of a launch.
func (s *Service) accepted(ctx context.Context, l *Launch, launched upstream.Launched, took time.Duration) (*Launch, error) {
	var next *Launch
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		if next, err = s.store.Accepted(ctx, tx, l.ID, launched.UniqueTransID, launched.At); err != nil {
			return err
		}
		if err := s.store.NoteAnswer(ctx, tx, l.LocationID, l.DeviceName, s.clock.Now(), took, false); err != nil {
			return err
		}
		return s.changed(ctx, tx, next, eventAccepted, nil)
	})
	return next, err
}

// refused records a launch the cloud refused: nothing reached the device,
// which is free again.
func (s *Service) refused(ctx context.Context, l *Launch, problem string, at time.Time) (*Launch, error) {
	var next *Launch
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		if next, err = s.store.Refused(ctx, tx, l.ID, problem, at); err != nil {
			return err
		}
		if err := s.store.NoteFailure(ctx, tx, l.LocationID, l.DeviceName, problem, at); err != nil {
			return err
		}
		return s.changed(ctx, tx, next, "Not sent: "+problem, nil)
	})
	return next, err
}

// unknown records that a launch's outcome is unknown; recheckUntil, when
// set, has the followers recheck its result slowly until then.
func (s *Service) unknown(ctx context.Context, l *Launch, problem string, recheckUntil *time.Time, at time.Time) (*Launch, error) {
	var next *Launch
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		if next, err = s.store.Unknown(ctx, tx, l.ID, problem, recheckUntil); err != nil {
			return err
		}
		if err := s.store.NoteFailure(ctx, tx, l.LocationID, l.DeviceName, problem, at); err != nil {
			return err
		}
		return s.changed(ctx, tx, next, "Outcome unknown: "+problem, nil)
	})
	return next, err
}

// senderLost marks unknown a launch whose sending process died before it
// recorded the cloud's answer: it may have reached the terminal.
func (s *Service) senderLost(ctx context.Context, l *Launch) {
	_, err := s.unknown(ctx, l, problemSenderLost, nil, s.clock.Now())
	if err != nil && !errors.Is(err, errMoved) {
		s.log.Error("terminal launch of a stopped process not marked unknown", "launch_id", l.ID, "err", err)
	}
}

// followed records how the following of a launch ended. It returns the
// launch to recheck slowly when its budget ran out with its id known.
func (s *Service) followed(ctx context.Context, t *tracked, fin upstream.Finished, how Resolution) (*Launch, error) {
	if fin.Result != nil {
		_, err := s.finishWithResult(ctx, t.launchID, fin.Result, how, fin.Polls, t.lastRead)
		if errors.Is(err, errMoved) {
			return nil, nil
		}
		return nil, err
	}
	if how == ResolvedByRecheck {
		// A day of rechecks found nothing: a person says what happened.
		return nil, s.store.StopRecheck(ctx, t.launchID)
	}
	l, err := s.store.Launch(ctx, nil, t.launchID)
	if err != nil {
		return nil, err
	}
	var next *Launch
	if errors.Is(fin.Err, upstream.ErrBudgetExceeded) {
		until := deref(l.LaunchedAt).Add(s.follow.cfg.RecheckFor)
		next, err = s.unknown(ctx, l, problemBudget, &until, s.clock.Now())
	} else {
		s.log.Warn("terminal result not readable", "launch_id", l.ID, "err", fin.Err)
		_, err = s.unknown(ctx, l, problemOfRead(fin.Err), nil, s.clock.Now())
	}
	if errors.Is(err, errMoved) {
		return nil, nil
	}
	return next, err
}

// finishWithResult records a launch's result: its state, what the terminal
// answered, the device's health and the ledger's line.
func (s *Service) finishWithResult(ctx context.Context, id uuid.UUID, r *upstream.Result, how Resolution, polls int, read time.Duration) (*Launch, error) {
	now := s.clock.Now()
	o := outcomeOf(r, how, polls, now)
	var l *Launch
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		if l, err = s.store.Finish(ctx, tx, id, o); err != nil {
			return err
		}
		if err := s.store.NoteAnswer(ctx, tx, l.LocationID, l.DeviceName, now, read, true); err != nil {
			return err
		}
		return s.changed(ctx, tx, l, eventOfResult(l), nil)
	})
	return l, err
}

// outcomeOf reads the outcome to record from a result.
func outcomeOf(r *upstream.Result, how Resolution, polls int, at time.Time) Outcome {
	o := Outcome{State: stateOf(r.Outcome()), Resolution: how, At: at, Polls: polls, ResultMessage: r.ResultMessage,
		ApprovalNumber: r.ApprovalNumberResult, MaskedAccount: maskAccount(r.MaskedAccount), CardBrand: r.AccountCardType,
		EntryMethod: r.AccountEntryMethod, BatchNumber: r.BatchNumber, Duplicate: r.Duplicate()}
	if r.ResultStatus {
		o.ProcessedCents = ptr(int64(r.AmountProcessed))
		o.TippedCents = ptr(int64(r.AmountTipped))
		o.AdjustedCents = ptr(int64(r.AmountAdjusted))
	}
	return o
}

// maskAccount keeps at most the last four digits of a masked card number,
// whatever the cloud sent: ************4223.
func maskAccount(s string) string {
	var digits []rune
	for _, r := range s {
		if r >= '0' && r <= '9' {
			digits = append(digits, r)
		}
	}
	if len(digits) == 0 {
		return ""
	}
	last := digits[max(0, len(digits)-4):]
	n := max(len([]rune(strings.TrimSpace(s))), 8)
	return strings.Repeat("*", n-len(last)) + string(last)
}
