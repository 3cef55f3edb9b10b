package imports

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/jobs"
	"github.com/payportal/portal/internal/models"
)

// PurgeArgs is the periodic job that deletes expired batches with their sealed rows.
type PurgeArgs struct{}

// Kind names the job in River.
func (PurgeArgs) Kind() string { return "imports_purge" }

// InsertOpts puts the purge on the housekeeping queue.
func (PurgeArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: jobs.QueueDefault} }

// PurgeWorker deletes expired batches.
type PurgeWorker struct {
	river.WorkerDefaults[PurgeArgs]
	svc *Service
}

// NewPurgeWorker returns the purge's worker.
func NewPurgeWorker(svc *Service) *PurgeWorker { return &PurgeWorker{svc: svc} }

// Work deletes what has expired; running it twice is harmless.
func (w *PurgeWorker) Work(ctx context.Context, _ *river.Job[PurgeArgs]) error {
	_, err := w.svc.Purge(ctx)
	return err
}

// Purge deletes the batches past their lifetime and says how many.
func (s *Service) Purge(ctx context.Context) (int64, error) {
	return purgeExpired(ctx, s.d.Apps.Querier(), s.d.Now())
}

// PurgePeriodicJob runs the purge every ten minutes, and when workers start. Pages
// refuse an expired batch whether or not it is purged yet.
func PurgePeriodicJob() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(10*time.Minute),
		func() (river.JobArgs, *river.InsertOpts) { return PurgeArgs{}, nil },
		&river.PeriodicJobOpts{RunOnStart: true})
}

// BackfillArgs is the job that computes the TIN's blind index of applications stored
// without one, or under a key that is no longer the active one.
type BackfillArgs struct{}

// Kind names the job in River.
func (BackfillArgs) Kind() string { return "imports_tin_index_backfill" }

// InsertOpts puts the backfill on the housekeeping queue.
func (BackfillArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: jobs.QueueDefault} }

// BackfillWorker fills in TIN indexes.
type BackfillWorker struct {
	river.WorkerDefaults[BackfillArgs]
	svc *Service
}

// NewBackfillWorker returns the backfill's worker.
func NewBackfillWorker(svc *Service) *BackfillWorker { return &BackfillWorker{svc: svc} }

// Work indexes every application that needs it.
func (w *BackfillWorker) Work(ctx context.Context, _ *river.Job[BackfillArgs]) error {
	_, err := w.svc.Backfill(ctx)
	return err
}

// BackfillPeriodicJob runs the backfill when workers start (after the migration that
// added the index, and after a key rotation) and daily.
func BackfillPeriodicJob() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(24*time.Hour),
		func() (river.JobArgs, *river.InsertOpts) { return BackfillArgs{}, nil },
		&river.PeriodicJobOpts{RunOnStart: true})
}

// backfillBatch is how many applications the backfill reads at a time.
const backfillBatch = 200

// Backfill computes the TIN index of every application without a current one, and says
// how many it wrote. An application saved meanwhile is skipped: its save wrote it.
func (s *Service) Backfill(ctx context.Context) (int, error) {
	n := 0
	for after := uuid.Nil; ; {
		ids, err := s.d.Apps.WithoutCurrentTINIndex(ctx, nil, s.d.Sealer.ActiveKeyID(), after, backfillBatch)
		if err != nil {
			return n, err
		}
		for _, id := range ids {
			a, err := s.d.Apps.Get(ctx, nil, id)
			if errors.Is(err, models.ErrNotFound) {
				a, err = s.d.Apps.Deleted(ctx, nil, id)
			}
			if err != nil {
				return n, err
			}
			d, err := s.d.Sealer.OpenApplication(a)
			if err != nil {
				return n, err
			}
			err = s.d.Apps.SetTINIndex(ctx, nil, id, a.Version, *s.d.Sealer.TINIndex(d))
			switch {
			case errors.Is(err, applications.ErrNoMatch):
			case err != nil:
				return n, err
			default:
				n++
			}
		}
		if len(ids) < backfillBatch {
			return n, nil
		}
		after = ids[len(ids)-1]
	}
}
