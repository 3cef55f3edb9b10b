package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
)

// releasedLeaseKeep is how long a released lease row stays: long enough for River to
// mark its job completed, after which the row tells the sweeper nothing.
const releasedLeaseKeep = 10 * time.Minute

// sweepPage is how many running jobs one listing brings.
const sweepPage = 1000

// Sweep hands back to the queue every job marked running whose run has stopped: its
// lease expired without being renewed or given back (the process was killed, or lost the
// database), or it never took one although it started more than a lease ago. Such a job
// becomes available at once (discarded, if it has no attempt left), as River's own
// rescuer would do after PORTAL_JOB_RESCUE_AFTER. Every instance that runs workers sweeps
// every third of a lease, so a crashed instance's jobs are picked up again within about
// a lease and a third of its last renewal, by whichever instance is alive. A sweep is
// safe on any number of instances at once: a job is moved only while it is still in the
// attempt that was found dead. It returns how many jobs it handed back.
//
// The running jobs are listed through River's public API (JobList). River's public
// JobRetry leaves a running job alone, so the hand-back goes through riverdriver's
// JobRescueMany, what River's own rescuer calls: River keeps riverdriver outside its
// versioning, so go.mod pins River and river_contract_test.go holds what is used here.
func (q *Queue) Sweep(ctx context.Context) (int, error) {
	running, err := q.running(ctx)
	if err != nil {
		return 0, err
	}
	orphans, err := q.leases.orphans(ctx, running)
	if err != nil {
		return 0, err
	}
	exec := q.inserter.Driver().GetExecutor()
	for _, o := range orphans {
		if err := handBack(ctx, exec, o); err != nil {
			return 0, err
		}
		q.log.Warn("job handed back to the queue: its run stopped renewing its lease", "job_id", o.ID, "kind", o.Kind, "attempt", o.Attempt,
			"discarded", o.Attempt >= o.MaxAttempts)
	}
	if _, err := q.pool.Exec(ctx, `DELETE FROM job_leases WHERE released AND expires_at < now() - $1 * interval '1 microsecond'`,
		releasedLeaseKeep.Microseconds()); err != nil {
		return len(orphans), fmt.Errorf("jobs: clean released leases: %w", err)
	}
	return len(orphans), nil
}

// running lists every job marked running, a page at a time, through River's public API.
func (q *Queue) running(ctx context.Context) ([]*rivertype.JobRow, error) {
	params := river.NewJobListParams().States(rivertype.JobStateRunning).
		OrderBy(river.JobListOrderByID, river.SortOrderAsc).First(sweepPage)
	var all []*rivertype.JobRow
	for {
		page, err := q.inserter.JobList(ctx, params)
		if err != nil {
			return nil, fmt.Errorf("jobs: list running jobs: %w", err)
		}
		all = append(all, page.Jobs...)
		if len(page.Jobs) < sweepPage {
			return all, nil
		}
		params = params.After(page.LastCursor)
	}
}

// orphans keeps the running jobs whose current attempt started more than a lease ago
// and holds no live lease (none taken, or one expired without being given back). The
// database's clock decides, as it does for the leases themselves.
func (l *leases) orphans(ctx context.Context, running []*rivertype.JobRow) ([]*rivertype.JobRow, error) {
	byID := make(map[int64]*rivertype.JobRow, len(running))
	ids, attempts, started := make([]int64, 0, len(running)), make([]int32, 0, len(running)), make([]time.Time, 0, len(running))
	for _, j := range running {
		if j.AttemptedAt == nil {
			continue // not started yet: nothing to hand back
		}
		byID[j.ID] = j
		ids, attempts, started = append(ids, j.ID), append(attempts, int32(j.Attempt)), append(started, *j.AttemptedAt)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := l.pool.Query(ctx, `SELECT r.id FROM unnest($1::bigint[], $2::int[], $3::timestamptz[]) AS r(id, attempt, attempted_at)
		WHERE r.attempted_at < now() - $4 * interval '1 microsecond'
		  AND NOT EXISTS (SELECT 1 FROM job_leases l WHERE l.job_id = r.id AND l.attempt = r.attempt
		                  AND (l.released OR l.expires_at > now()))
		ORDER BY r.id`, ids, attempts, started, l.ttl.Microseconds())
	if err != nil {
		return nil, fmt.Errorf("jobs: find orphaned jobs: %w", err)
	}
	dead, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("jobs: find orphaned jobs: %w", err)
	}
	out := make([]*rivertype.JobRow, len(dead))
	for i, id := range dead {
		out[i] = byID[id]
	}
	return out, nil
}

// handBack makes an orphaned job available again at once, or discards it when it has no
// attempt left, with the reason in its errors, as River's rescuer does. The horizon just
// after this attempt's start keeps a later attempt, started meanwhile by someone else,
// from being moved.
func handBack(ctx context.Context, exec riverdriver.Executor, o *rivertype.JobRow) error {
	now := time.Now().UTC()
	state, finalized := rivertype.JobStateAvailable, (*time.Time)(nil)
	if o.Attempt >= o.MaxAttempts {
		state, finalized = rivertype.JobStateDiscarded, &now
	}
	errData, err := json.Marshal(rivertype.AttemptError{
		At: now, Attempt: o.Attempt, Error: "Its run stopped renewing its lease (the worker's process died or lost the database); handed back to the queue",
	})
	if err != nil {
		return err
	}
	_, err = exec.JobRescueMany(ctx, &riverdriver.JobRescueManyParams{
		ID: []int64{o.ID}, Error: [][]byte{errData}, FinalizedAt: []*time.Time{finalized},
		ScheduledAt: []time.Time{now}, State: []string{string(state)},
		StuckHorizon: o.AttemptedAt.Add(time.Microsecond),
	})
	if err != nil {
		return fmt.Errorf("jobs: hand back job %d: %w", o.ID, err)
	}
	return nil
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
