package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// OneTimeTask is work done once per database, such as sealing values stored before
// they were sealed. A job runs it and records it in one_time_tasks, so that a start
// reads that small table instead of looking through the rooms' tables again.
// Run must be safe to run twice (a job may be cut short and run again) and returns
// how many rows it changed.
type OneTimeTask struct {
	Name string
	Run  func(ctx context.Context) (changed int, err error)
}

// OneTimeTasksArgs is the job that runs the one-time tasks not done yet.
type OneTimeTasksArgs struct{}

// Kind names the job in River.
func (OneTimeTasksArgs) Kind() string { return "one_time_tasks" }

// InsertOpts keeps one such job at a time (replicas starting together queue one); once
// it has run, a later version with a new task queues another.
func (OneTimeTasksArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: []rivertype.JobState{
		rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
		rivertype.JobStateRetryable, rivertype.JobStateScheduled,
	}}}
}

// ScheduleOneTimeTasks registers the worker of tasks and, when one of them is not
// done yet, queues the job that runs them (on whichever instance works jobs). Call it
// while wiring, before Start. It costs one read of one_time_tasks.
func ScheduleOneTimeTasks(ctx context.Context, q *Queue, tasks []OneTimeTask, now func() time.Time, log *slog.Logger) error {
	w := &oneTimeWorker{pool: q.pool, tasks: tasks, now: now, log: log}
	Register(q, w)
	pending, err := w.pending(ctx)
	if err != nil || len(pending) == 0 {
		return err
	}
	if _, err := q.Insert(ctx, OneTimeTasksArgs{}, nil); err != nil {
		return err
	}
	log.Info("one-time tasks queued", "tasks", pending)
	return nil
}

// oneTimeWorker runs the one-time tasks not done yet, in their order.
type oneTimeWorker struct {
	river.WorkerDefaults[OneTimeTasksArgs]
	pool  *pgxpool.Pool
	tasks []OneTimeTask
	now   func() time.Time
	log   *slog.Logger
}

// Work runs each task not done yet and records it; a failure leaves it (and those
// after it) to the job's next attempt.
func (w *oneTimeWorker) Work(ctx context.Context, _ *river.Job[OneTimeTasksArgs]) error {
	pending, err := w.pending(ctx)
	if err != nil {
		return err
	}
	for _, t := range w.tasks {
		if !slices.Contains(pending, t.Name) {
			continue
		}
		changed, err := t.Run(ctx)
		if err != nil {
			return fmt.Errorf("one-time task %s: %w", t.Name, err)
		}
		if _, err := w.pool.Exec(ctx, `INSERT INTO one_time_tasks (name, done_at, changed) VALUES ($1, $2, $3)
			ON CONFLICT (name) DO NOTHING`, t.Name, w.now(), changed); err != nil {
			return fmt.Errorf("one-time task %s: record it done: %w", t.Name, err)
		}
		w.log.Info("one-time task done", "task", t.Name, "changed", changed)
	}
	return nil
}

// pending names the tasks not recorded done.
func (w *oneTimeWorker) pending(ctx context.Context) ([]string, error) {
	rows, err := w.pool.Query(ctx, `SELECT name FROM one_time_tasks`)
	if err != nil {
		return nil, fmt.Errorf("one-time tasks: %w", err)
	}
	done, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("one-time tasks: %w", err)
	}
	var pending []string
	for _, t := range w.tasks {
		if !slices.Contains(done, t.Name) {
			pending = append(pending, t.Name)
		}
	}
	return pending, nil
}
