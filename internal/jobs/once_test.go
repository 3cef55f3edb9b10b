package jobs_test

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/payportal/portal/internal/jobs"
	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// One-time tasks run once, in a job, in their order; a task that fails is tried
// again by the job's next attempt without running again those done before it; and a
// start that finds every task recorded done queues nothing and runs nothing.
func TestOneTimeTasksRunOnceAndAreRecorded(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	var sealed, fixed atomic.Int32
	tasks := []jobs.OneTimeTask{
		{Name: "test_seal", Run: func(context.Context) (int, error) { sealed.Add(1); return 3, nil }},
		{Name: "test_fix", Run: func(context.Context) (int, error) {
			if fixed.Add(1) == 1 {
				return 0, errors.New("planned failure")
			}
			return 0, nil
		}},
	}
	log := slog.New(slog.DiscardHandler)
	now := func() time.Time { return time.Date(2026, time.December, 8, 9, 0, 0, 0, time.UTC) }
	q, err := jobs.New(db.Pool, fastConfig(), log)
	if err != nil {
		t.Fatal(err)
	}
	if err := jobs.ScheduleOneTimeTasks(ctx, q, tasks, now, log); err != nil {
		t.Fatal(err)
	}
	start(t, q)
	testutil.Eventually(t, 30*time.Second, "both tasks recorded done", func() (bool, string) {
		var n int
		err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM one_time_tasks WHERE name LIKE 'test_%'`).Scan(&n)
		return err == nil && n == 2, ""
	})
	var changed int
	if err := db.Pool.QueryRow(ctx, `SELECT changed FROM one_time_tasks WHERE name = 'test_seal'`).Scan(&changed); err != nil || changed != 3 {
		t.Fatalf("test_seal recorded %d changed, %v; want 3", changed, err)
	}
	if sealed.Load() != 1 || fixed.Load() != 2 {
		t.Fatalf("runs: seal %d, fix %d; want 1 and 2", sealed.Load(), fixed.Load())
	}

	// The next start.
	again, err := jobs.New(db.Pool, fastConfig(), log)
	if err != nil {
		t.Fatal(err)
	}
	if err := jobs.ScheduleOneTimeTasks(ctx, again, tasks, now, log); err != nil {
		t.Fatal(err)
	}
	var queued int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'one_time_tasks'`).Scan(&queued); err != nil || queued != 1 {
		t.Fatalf("one-time jobs after the second start: %d, %v; want the first only", queued, err)
	}
	if sealed.Load() != 1 {
		t.Fatalf("test_seal ran %d times, want once", sealed.Load())
	}
}
