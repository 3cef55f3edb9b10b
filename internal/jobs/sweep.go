package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
)

// releasedLeaseKeep is how long a released lease row stays: long enough for River to
// mark its job completed, after which the row tells the sweeper nothing.
const releasedLeaseKeep = 10 * time.Minute

// orphan is a job marked running whose run holds no live lease.
type orphan struct {
	ID          int64
	Attempt     int
	MaxAttempts int
	AttemptedAt time.Time
	Kind        string
}

// Sweep hands back to the queue every job marked running whose run has stopped: its
// lease expired without being renewed or given back (the process was killed, or lost the
// database), or it never took one although it started more than a lease ago. Such a job
// becomes available at once (discarded, if it has no attempt left), as River's own
// rescuer would do after PORTAL_JOB_RESCUE_AFTER. Every instance that runs workers sweeps
// every third of a lease, so a crashed instance's jobs are picked up again within about
// a lease and a third of its last renewal, by whichever instance is alive. A sweep is
// safe on any number of instances at once: a job is moved only while it is still in the
// attempt that was found dead. It returns how many jobs it handed back.
func (q *Queue) Sweep(ctx context.Context) (int, error) {
	rows, err := q.pool.Query(ctx, `SELECT j.id, j.attempt, j.max_attempts, j.attempted_at, j.kind
		FROM river_job j
		WHERE j.state = 'running' AND j.attempted_at < now() - $1 * interval '1 microsecond'
		  AND NOT EXISTS (SELECT 1 FROM job_leases l WHERE l.job_id = j.id AND l.attempt = j.attempt
		                  AND (l.released OR l.expires_at > now()))
		ORDER BY j.id LIMIT 1000`, q.leases.ttl.Microseconds())
	if err != nil {
		return 0, fmt.Errorf("jobs: find orphaned jobs: %w", err)
	}
	orphans, err := pgx.CollectRows(rows, pgx.RowToStructByPos[orphan])
	if err != nil {
		return 0, fmt.Errorf("jobs: find orphaned jobs: %w", err)
	}
	exec := q.inserter.Driver().GetExecutor()
	for _, o := range orphans {
		now := time.Now().UTC()
		state, finalized := rivertype.JobStateAvailable, (*time.Time)(nil)
		if o.Attempt >= o.MaxAttempts {
			state, finalized = rivertype.JobStateDiscarded, &now
		}
		errData, err := json.Marshal(rivertype.AttemptError{
			At: now, Attempt: o.Attempt, Error: "Its run stopped renewing its lease (the worker's process died or lost the database); handed back to the queue",
		})
		if err != nil {
			return 0, err
		}
		// The horizon just after this attempt's start keeps a later attempt, started
		// meanwhile by someone else, from being moved.
		_, err = exec.JobRescueMany(ctx, &riverdriver.JobRescueManyParams{
			ID: []int64{o.ID}, Error: [][]byte{errData}, FinalizedAt: []*time.Time{finalized},
			ScheduledAt: []time.Time{now}, State: []string{string(state)},
			StuckHorizon: o.AttemptedAt.Add(time.Microsecond),
		})
		if err != nil {
			return 0, fmt.Errorf("jobs: hand back job %d: %w", o.ID, err)
		}
		q.log.Warn("job handed back to the queue: its run stopped renewing its lease", "job_id", o.ID, "kind", o.Kind, "attempt", o.Attempt, "state", state)
	}
	if _, err := q.pool.Exec(ctx, `DELETE FROM job_leases WHERE released AND expires_at < now() - $1 * interval '1 microsecond'`,
		releasedLeaseKeep.Microseconds()); err != nil {
		return len(orphans), fmt.Errorf("jobs: clean released leases: %w", err)
	}
	return len(orphans), nil
}

// sweepLoop sweeps at once and then every third of a lease until ctx ends.
func (q *Queue) sweepLoop(ctx context.Context) {
	for {
		if _, err := q.Sweep(ctx); err != nil && ctx.Err() == nil {
			q.log.Error("sweep of orphaned jobs failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-q.leases.after(q.leases.renewEvery()):
		}
	}
}
