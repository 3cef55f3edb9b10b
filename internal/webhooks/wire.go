package webhooks

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/payportal/portal/internal/jobs"
)

// Register builds the service and the emitter, and registers the delivery worker and the
// daily pruning of old events on d.Queue; call it while wiring, before the queue starts.
// retryDelay replaces RetryDelay (tests); nil keeps the schedule.
func Register(d Deps, sender *Sender, retryDelay func(attempt int) time.Duration) (*Service, *Emitter) {
	if retryDelay == nil {
		retryDelay = RetryDelay
	}
	svc := NewService(d)
	jobs.Register(d.Queue, &deliverWorker{svc: svc, sender: sender, delay: retryDelay, log: svc.d.Log})
	jobs.Register(d.Queue, &pruneWorker{store: d.Store, now: svc.now})
	d.Queue.AddPeriodic(river.NewPeriodicJob(river.PeriodicInterval(24*time.Hour),
		func() (river.JobArgs, *river.InsertOpts) { return PruneArgs{}, nil },
		&river.PeriodicJobOpts{RunOnStart: true}))
	return svc, NewEmitter(d.Queue, svc.now)
}

// Retention is how long events and their delivery logs are kept once no delivery of
// theirs is pending.
const Retention = 30 * 24 * time.Hour

// PruneArgs is the daily job that deletes events past Retention with their deliveries.
type PruneArgs struct{}

// Kind implements river.JobArgs.
func (PruneArgs) Kind() string { return "webhook_prune" }

type pruneWorker struct {
	river.WorkerDefaults[PruneArgs]
	store *Store
	now   func() time.Time
}

// Work deletes old events a thousand at a time, so no delete holds locks for long;
// running it twice is harmless.
func (w *pruneWorker) Work(ctx context.Context, _ *river.Job[PruneArgs]) error {
	before := w.now().Add(-Retention)
	for {
		tag, err := w.store.Pool.Exec(ctx, `DELETE FROM webhook_events WHERE id IN (
			SELECT ev.id FROM webhook_events ev WHERE ev.created_at < $1
			AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = ev.id AND d.status = 'pending')
			LIMIT 1000)`, before)
		if err != nil {
			return fmt.Errorf("prune webhook events: %w", err)
		}
		if tag.RowsAffected() < 1000 {
			return nil
		}
	}
}
