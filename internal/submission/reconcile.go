package submission

import (
	"context"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/jobs"
)

// DefaultReconcileInterval is how often the reconciler looks for submissions
// without a push job.
const DefaultReconcileInterval = time.Minute

// ReconcileArgs is the periodic job that re-enqueues lost pushes.
type ReconcileArgs struct{}

// Kind names the job in River.
func (ReconcileArgs) Kind() string { return "application_push_reconcile" }

// ReconcileWorker re-enqueues the push of every application left in
// submitting without a live push job: a job discarded by an operator, removed
// from the queue, or lost in a restore of the database. Submit enqueues in the
// same transaction as the status change, so normally there is nothing to do.
// The push job is unique per submission while it is live, so enqueueing one
// that exists does nothing: the reconciler needs no lock and may run on any
// instance at any time.
type ReconcileWorker struct {
	river.WorkerDefaults[ReconcileArgs]
	apps  *applications.Store
	queue *jobs.Queue
	log   *slog.Logger
}

// NewReconcileWorker returns the reconciler; register it with jobs.Register
// and schedule it with ReconcilePeriodicJob.
func NewReconcileWorker(apps *applications.Store, queue *jobs.Queue, log *slog.Logger) *ReconcileWorker {
	return &ReconcileWorker{apps: apps, queue: queue, log: log}
}

// ReconcilePeriodicJob schedules the reconciler every interval, and once when
// the workers start (after a crash is exactly when it is needed).
func ReconcilePeriodicJob(every time.Duration) *river.PeriodicJob {
	if every <= 0 {
		every = DefaultReconcileInterval
	}
	return river.NewPeriodicJob(river.PeriodicInterval(every),
		func() (river.JobArgs, *river.InsertOpts) { return ReconcileArgs{}, nil },
		&river.PeriodicJobOpts{RunOnStart: true})
}

// Work enqueues a push for each submission in flight; duplicates of live jobs
// are skipped by River.
func (w *ReconcileWorker) Work(ctx context.Context, _ *river.Job[ReconcileArgs]) error {
	n, err := w.Reconcile(ctx)
	if n > 0 {
		w.log.Warn("re-enqueued application pushes that had no job", "count", n)
	}
	return err
}

// Reconcile does the work of one run and returns how many pushes it enqueued.
func (w *ReconcileWorker) Reconcile(ctx context.Context) (int, error) {
	inFlight, err := w.apps.Submitting(ctx, nil)
	if err != nil {
		return 0, err
	}
	pending := make([]PushArgs, len(inFlight))
	for i, f := range inFlight {
		pending[i] = PushArgs{ApplicationID: f.ID, Submission: f.Submission}
	}
	enqueued := 0
	for _, args := range pending {
		res, err := w.queue.Insert(ctx, args, nil)
		if err != nil {
			return enqueued, err
		}
		if !res.UniqueSkippedAsDuplicate {
			enqueued++
			w.log.Info("push re-enqueued", "application_id", args.ApplicationID, "submission", args.Submission)
		}
	}
	return enqueued, nil
}
