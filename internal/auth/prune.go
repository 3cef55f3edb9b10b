package auth

import (
	"context"
	"time"

	"github.com/riverqueue/river"
	"gorm.io/gorm"
)

// failureRetention is how long failed sign-ins are kept: far longer than any
// throttling window, short enough that the table stays small.
const failureRetention = 24 * time.Hour

// PruneLoginFailuresArgs is the periodic job that deletes old failed sign-ins.
type PruneLoginFailuresArgs struct{}

// Kind names the job for River.
func (PruneLoginFailuresArgs) Kind() string { return "auth_prune_login_failures" }

// PruneLoginFailuresWorker deletes failed sign-ins older than a day.
type PruneLoginFailuresWorker struct {
	river.WorkerDefaults[PruneLoginFailuresArgs]
	db  *gorm.DB
	now func() time.Time
}

// NewPruneLoginFailuresWorker returns the pruning worker.
func NewPruneLoginFailuresWorker(db *gorm.DB, now func() time.Time) *PruneLoginFailuresWorker {
	return &PruneLoginFailuresWorker{db: db, now: now}
}

// Work deletes the old rows; running it twice is harmless.
func (w *PruneLoginFailuresWorker) Work(ctx context.Context, _ *river.Job[PruneLoginFailuresArgs]) error {
	_, err := PruneLoginFailures(ctx, w.db, w.now())
	return err
}

// PruneLoginFailures deletes failed sign-ins older than the retention and says how many.
func PruneLoginFailures(ctx context.Context, db *gorm.DB, now time.Time) (int64, error) {
	res := db.WithContext(ctx).Exec("DELETE FROM login_failures WHERE created_at < ?", now.Add(-failureRetention))
	return res.RowsAffected, res.Error
}

// PruneLoginFailuresPeriodicJob runs the pruning every hour.
func PruneLoginFailuresPeriodicJob() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(time.Hour),
		func() (river.JobArgs, *river.InsertOpts) { return PruneLoginFailuresArgs{}, nil },
		&river.PeriodicJobOpts{RunOnStart: true})
}
