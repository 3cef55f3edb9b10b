package jobs_test

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/jobs"
	"github.com/payportal/portal/internal/testutil/testdb"
)

type pingArgs struct{ N int }

func (pingArgs) Kind() string { return "test_ping" }

// pingWorker reports every job it works on a channel and can fail the first
// attempts or block until released.
type pingWorker struct {
	river.WorkerDefaults[pingArgs]
	done     chan int
	started  chan int
	release  chan struct{}
	failures atomic.Int32
}

func (w *pingWorker) Work(ctx context.Context, job *river.Job[pingArgs]) error {
	if w.started != nil {
		w.started <- job.Args.N
	}
	if w.release != nil {
		select {
		case <-w.release:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if w.failures.Add(-1) >= 0 {
		return errors.New("planned failure")
	}
	w.done <- job.Args.N
	return nil
}

func fastConfig() jobs.Config {
	return jobs.Config{
		RunWorkers:      true,
		Concurrency:     2,
		ShutdownTimeout: 5 * time.Second,
		PollInterval:    50 * time.Millisecond,
		RetryDelay:      func(int) time.Duration { return 20 * time.Millisecond },
	}
}

func newQueue(t *testing.T, db *database.DB, cfg jobs.Config, w *pingWorker) *jobs.Queue {
	t.Helper()
	q, err := jobs.New(db.Pool, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	jobs.Register(q, w)
	return q
}

func start(t *testing.T, q *jobs.Queue) {
	t.Helper()
	if err := q.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = q.StopAndCancel(context.Background()) })
}

func receive(t *testing.T, ch <-chan int) int {
	t.Helper()
	select {
	case n := <-ch:
		return n
	case <-time.After(15 * time.Second):
		t.Fatal("timed out waiting for the job")
		return 0
	}
}

func jobStates(t *testing.T, db *database.DB) map[string]int {
	t.Helper()
	rows, err := db.Pool.Query(context.Background(), "SELECT state::text, count(*) FROM river_job WHERE kind = 'test_ping' GROUP BY state")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var s string
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			t.Fatal(err)
		}
		out[s] = n
	}
	return out
}

func TestInsertTxIsAtomicWithTheTransaction(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	w := &pingWorker{done: make(chan int, 4)}
	q := newQueue(t, db, fastConfig(), w)
	start(t, q)
	ctx := context.Background()

	// Rolled back: the job never existed.
	tx, err := db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.InsertTx(ctx, tx, pingArgs{N: 1}, nil); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	// Committed: it runs.
	tx, err = db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.InsertTx(ctx, tx, pingArgs{N: 2}, nil); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if n := receive(t, w.done); n != 2 {
		t.Fatalf("worked job %d, want 2", n)
	}
	var total int
	if err := db.Pool.QueryRow(ctx, "SELECT count(*) FROM river_job WHERE kind = 'test_ping'").Scan(&total); err != nil {
		t.Fatal(err)
	}
	if total != 1 {
		t.Fatalf("%d jobs stored, want only the committed one", total)
	}
}

func TestFailedJobIsRetried(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	w := &pingWorker{done: make(chan int, 1)}
	w.failures.Store(2)
	q := newQueue(t, db, fastConfig(), w)
	start(t, q)
	res, err := q.Insert(context.Background(), pingArgs{N: 7}, nil)
	if err != nil {
		t.Fatal(err)
	}
	receive(t, w.done)
	var attempt int
	if err := db.Pool.QueryRow(context.Background(), "SELECT attempt FROM river_job WHERE id = $1", res.Job.ID).Scan(&attempt); err != nil {
		t.Fatal(err)
	}
	if attempt != 3 {
		t.Fatalf("succeeded on attempt %d, want 3", attempt)
	}
}

func TestStopLetsRunningJobsFinish(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	w := &pingWorker{done: make(chan int, 1), started: make(chan int, 1), release: make(chan struct{})}
	q := newQueue(t, db, fastConfig(), w)
	start(t, q)
	if _, err := q.Insert(context.Background(), pingArgs{N: 1}, nil); err != nil {
		t.Fatal(err)
	}
	receive(t, w.started)
	stopped := make(chan error, 1)
	go func() { stopped <- q.Stop(context.Background()) }()
	close(w.release)
	if err := <-stopped; err != nil {
		t.Fatalf("stop: %v", err)
	}
	receive(t, w.done)
	if st := jobStates(t, db); st["completed"] != 1 {
		t.Fatalf("job states after a graceful stop: %v", st)
	}
}

func TestStopCancelsJobsThatOutlastTheShutdownTimeout(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	cfg := fastConfig()
	cfg.ShutdownTimeout = 50 * time.Millisecond
	w := &pingWorker{done: make(chan int, 1), started: make(chan int, 1), release: make(chan struct{})}
	q := newQueue(t, db, cfg, w)
	start(t, q)
	if _, err := q.Insert(context.Background(), pingArgs{N: 1}, nil); err != nil {
		t.Fatal(err)
	}
	receive(t, w.started)
	if err := q.Stop(context.Background()); err != nil {
		t.Fatalf("stop: %v", err)
	}
	// The cancelled job is kept for another attempt, not lost.
	if st := jobStates(t, db); st["retryable"]+st["available"] != 1 {
		t.Fatalf("job states after a hard stop: %v", st)
	}
}

func TestWebOnlyInstanceEnqueuesButDoesNotWork(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	cfg := fastConfig()
	cfg.RunWorkers = false
	w := &pingWorker{done: make(chan int, 1)}
	q := newQueue(t, db, cfg, w)
	start(t, q)
	if _, err := q.Insert(context.Background(), pingArgs{N: 1}, nil); err != nil {
		t.Fatal(err)
	}
	// A second instance that runs workers picks the job up.
	worker := &pingWorker{done: make(chan int, 1)}
	other := newQueue(t, db, fastConfig(), worker)
	start(t, other)
	receive(t, worker.done)
	select {
	case <-w.done:
		t.Fatal("the web-only instance worked a job")
	default:
	}
}

func TestPeriodicJobRunsOnStart(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	w := &pingWorker{done: make(chan int, 1)}
	q := newQueue(t, db, fastConfig(), w)
	q.AddPeriodic(river.NewPeriodicJob(river.PeriodicInterval(time.Hour),
		func() (river.JobArgs, *river.InsertOpts) { return pingArgs{N: 42}, nil },
		&river.PeriodicJobOpts{RunOnStart: true}))
	start(t, q)
	if n := receive(t, w.done); n != 42 {
		t.Fatalf("periodic job %d", n)
	}
}

func TestRegisterAfterStartPanics(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	q := newQueue(t, db, fastConfig(), &pingWorker{done: make(chan int, 1)})
	start(t, q)
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	jobs.Register(q, river.WorkFunc(func(context.Context, *river.Job[otherArgs]) error { return nil }))
}

type otherArgs struct{}

func (otherArgs) Kind() string { return "test_other" }

func TestDefaultRetryDelayGrowsAndIsCapped(t *testing.T) {
	t.Parallel()
	tests := []struct {
		attempt  int
		min, max time.Duration
	}{
		{1, time.Second, 1100 * time.Millisecond},
		{2, 16 * time.Second, 17600 * time.Millisecond},
		{5, 625 * time.Second, 687500 * time.Millisecond},
		{40, 6 * time.Hour, 6*time.Hour + 36*time.Minute},
		{100000, 6 * time.Hour, 6*time.Hour + 36*time.Minute},
	}
	for _, tt := range tests {
		got := jobs.DefaultRetryDelay(tt.attempt)
		if got < tt.min || got > tt.max {
			t.Errorf("attempt %d: %v, want between %v and %v", tt.attempt, got, tt.min, tt.max)
		}
	}
}
