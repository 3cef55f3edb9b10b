package payments

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/payportal/portal/internal/models"
	upstream "github.com/payportal/portal/internal/upstream/payments"
	"github.com/payportal/portal/internal/view"
)

// CheckArgs asks to learn what became of a direct transaction whose request
// may not have finished: the request timed out, lost its answer, or the portal
// died while it was on its way. It carries the transaction's id only.
type CheckArgs struct {
	TransactionID uuid.UUID `json:"transaction_id"`
}

// Kind names the job.
func (CheckArgs) Kind() string { return "payments_check" }

// InsertOpts keep one check per transaction.
func (CheckArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 50, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// checkWorker reads a transaction back until it knows. It is enqueued with the
// intent, in the same database transaction, to run CheckEvery after it: if the
// request answers first, the check finds the transaction answered and stops.
// Otherwise it reads the transaction back by its externalTransactionId: found,
// the processor's answer is recorded; not found, it looks again every
// CheckEvery, and only when a read-back after the grace period still finds
// nothing is the transaction "not charged". It never sends the payment again.
type checkWorker struct {
	river.WorkerDefaults[CheckArgs]
	s *Service
}

// Work implements river.Worker.
func (w *checkWorker) Work(ctx context.Context, job *river.Job[CheckArgs]) error {
	s := w.s
	t, err := s.ledger.ByID(ctx, nil, job.Args.TransactionID)
	if errors.Is(err, models.ErrNotFound) {
		return nil // rolled back with its intent
	}
	if err != nil {
		return err
	}
	if !t.Status.Open() || t.Source == SourceTerminal {
		return nil
	}
	acct, err := s.accountOf(ctx, t.MerchantID)
	if err != nil {
		return err
	}
	ut, err := s.up.Get(ctx, acct, t.ID.String())
	switch {
	case err == nil:
		_, err := s.finish(ctx, t, ut, nil, s.afterCheck)
		if err == nil {
			s.log.Info("unknown payment outcome resolved by read-back", "transaction_id", t.ID, "status", ut.ResultStatus)
		}
		return err
	case errors.Is(err, upstream.ErrNotFound):
		return s.notFound(ctx, t)
	}
	s.log.Warn("payment read-back failed; checking again later", "transaction_id", t.ID, "err", err)
	return river.JobSnooze(s.cfg.CheckEvery)
}

// Timeout allows a read-back with its retries.
func (w *checkWorker) Timeout(*river.Job[CheckArgs]) time.Duration { return 2 * time.Minute }

// notFound handles a read-back that found nothing: past the grace period the
// payment is not charged; before it, the transaction shows "checking" (once
// its request can no longer be running) and is read back again later.
func (s *Service) notFound(ctx context.Context, t *Transaction) error {
	now := s.now()
	deadline := t.CreatedAt.Add(s.cfg.CheckGrace)
	if t.CheckUntil != nil {
		deadline = *t.CheckUntil
	}
	if !now.Before(deadline) {
		err := s.inTx(ctx, func(tx pgx.Tx) error {
			_, err := s.ledger.Answer(ctx, tx, t.ID, Answer{Status: StatusNotCharged, ResultMessage: msgNotCharged,
				Event: Event{Kind: EventNotCharged, Message: msgNotCharged}})
			if errors.Is(err, ErrNotOpen) {
				return nil
			}
			return err
		})
		if err == nil {
			s.log.Info("unknown payment outcome resolved: not charged", "transaction_id", t.ID)
		}
		return err
	}
	if t.Status == StatusPending && now.Sub(t.CreatedAt) >= s.cfg.CallTimeout {
		// The request is over, or died with its portal: say so.
		err := s.inTx(ctx, func(tx pgx.Tx) error {
			_, err := s.ledger.Answer(ctx, tx, t.ID, Answer{Status: StatusChecking, CheckUntil: &deadline,
				// The timeline's entry is kept as text: a length of time reads right in every zone.
				Event: Event{Kind: EventCheckedNotFound, Message: "The request did not finish; the processor has no record of it yet. Checking again for up to " +
					view.Duration(deadline.Sub(now).Round(time.Minute)) + "."}})
			if errors.Is(err, ErrNotOpen) {
				return nil
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	return river.JobSnooze(s.cfg.CheckEvery)
}

// afterCheck completes what a transaction's own request would have done once
// answered (a saved method, a receipt).
func (s *Service) afterCheck(tx pgx.Tx, t *Transaction) error {
	return s.afterAnswer(context.Background(), tx, t)
}

// scheduleCheck enqueues the check of intent id in tx, to run CheckEvery from
// now (wall clock: River's own).
func (s *Service) scheduleCheck(ctx context.Context, tx pgx.Tx, id uuid.UUID) error {
	opts := CheckArgs{}.InsertOpts()
	opts.ScheduledAt = time.Now().Add(s.cfg.CheckEvery)
	_, err := s.queue.InsertTx(ctx, tx, CheckArgs{TransactionID: id}, &opts)
	return err
}
