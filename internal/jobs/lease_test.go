package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/jobs"
	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// exclusiveArgs share a lease when their Key is the same.
type exclusiveArgs struct {
	Key string
	N   int
}

func (exclusiveArgs) Kind() string       { return "test_exclusive" }
func (a exclusiveArgs) LeaseKey() string { return "test:" + a.Key }

// blockingWorker reports each run's start and holds it until released or
// cancelled, then reports why it ended.
type blockingWorker[T river.JobArgs] struct {
	river.WorkerDefaults[T]
	started chan T
	release chan struct{}
	ended   chan error
}

func newBlockingWorker[T river.JobArgs]() *blockingWorker[T] {
	return &blockingWorker[T]{started: make(chan T, 8), release: make(chan struct{}), ended: make(chan error, 8)}
}

func (w *blockingWorker[T]) Work(ctx context.Context, job *river.Job[T]) error {
	w.started <- job.Args
	select {
	case <-w.release:
		w.ended <- nil
		return nil
	case <-ctx.Done():
		w.ended <- context.Cause(ctx)
		return ctx.Err()
	}
}

func jobState(t *testing.T, db *database.DB, id int64) string {
	t.Helper()
	var s string
	if err := db.Pool.QueryRow(context.Background(), "SELECT state::text FROM river_job WHERE id = $1", id).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// Two runs that need the same lease never work at once: the second waits
// (snoozed, without using up an attempt) until the first has given it back.
func TestRunsOfOneLeaseKeyNeverOverlap(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	cfg := fastConfig()
	cfg.LeaseTTL = 3 * time.Second
	q, err := jobs.New(db.Pool, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	w := newBlockingWorker[exclusiveArgs]()
	jobs.Register(q, w)
	start(t, q)
	ctx := context.Background()
	if _, err := q.Insert(ctx, exclusiveArgs{Key: "a", N: 1}, nil); err != nil {
		t.Fatal(err)
	}
	if got := receiveArgs(t, w.started); got.N != 1 {
		t.Fatalf("started %d first", got.N)
	}
	second, err := q.Insert(ctx, exclusiveArgs{Key: "a", N: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 10*time.Second, "the second run to wait", func() (bool, string) {
		var state string
		var snoozes int
		if err := db.Pool.QueryRow(ctx, `SELECT state::text, coalesce((metadata->>'snoozes')::int, 0) FROM river_job WHERE id = $1`,
			second.Job.ID).Scan(&state, &snoozes); err != nil {
			t.Fatal(err)
		}
		return snoozes > 0 && state != "running", fmt.Sprintf("it is %s, snoozed %d times", state, snoozes)
	})
	// Another key is not held up.
	if _, err := q.Insert(ctx, exclusiveArgs{Key: "b", N: 3}, nil); err != nil {
		t.Fatal(err)
	}
	if got := receiveArgs(t, w.started); got.N != 3 {
		t.Fatalf("started %d while the first held its lease", got.N)
	}
	w.release <- struct{}{} // one of the two running ends
	w.release <- struct{}{}
	if got := receiveArgs(t, w.started); got.N != 2 {
		t.Fatalf("started %d, want the waiting one", got.N)
	}
	close(w.release)
	testutil.Eventually(t, 10*time.Second, "the second run to complete", func() (bool, string) {
		s := jobState(t, db, second.Job.ID)
		return s == "completed", "it is " + s
	})
	var attempt int
	if err := db.Pool.QueryRow(ctx, "SELECT attempt FROM river_job WHERE id = $1", second.Job.ID).Scan(&attempt); err != nil {
		t.Fatal(err)
	}
	if attempt != 1 {
		t.Errorf("waiting for the lease used up attempts: attempt %d", attempt)
	}
}

// fakeClock drives lease renewals and sweeps by hand.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []chan time.Time
	waiting chan struct{} // receives when someone starts waiting
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Now(), waiting: make(chan struct{}, 64)}
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *fakeClock) After(time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	c.waiters = append(c.waiters, ch)
	c.waiting <- struct{}{}
	return ch
}

// Advance moves the clock and wakes everyone waiting.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	for _, ch := range c.waiters {
		ch <- c.now
	}
	c.waiters = nil
}

func leaseConfig(clock *fakeClock) jobs.Config {
	cfg := fastConfig()
	cfg.LeaseTTL = 30 * time.Second
	cfg.Now, cfg.After = clock.Now, clock.After
	return cfg
}

// A run whose lease was taken over (it had expired) stops at its next
// renewal; one that cannot renew before its lease would expire stops then.
// Either way its context ends with ErrLeaseLost and the job is retried.
func TestARunThatLosesItsLeaseStops(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		lose func(t *testing.T, db *database.DB, clock *fakeClock)
	}{
		{"taken over", func(t *testing.T, db *database.DB, clock *fakeClock) {
			if _, err := db.Pool.Exec(context.Background(), "UPDATE job_leases SET holder = gen_random_uuid()"); err != nil {
				t.Fatal(err)
			}
			clock.Advance(10 * time.Second)
		}},
		{"not renewed in time", func(t *testing.T, db *database.DB, clock *fakeClock) {
			// Renewals are due every 10 s; none came through for 28 s (the
			// database was out of reach), which leaves less than the margin.
			clock.mu.Lock()
			clock.now = clock.now.Add(28 * time.Second)
			clock.mu.Unlock()
			clock.Advance(0)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := testdb.New(t)
			clock := newFakeClock()
			q, err := jobs.New(db.Pool, leaseConfig(clock), slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			w := newBlockingWorker[exclusiveArgs]()
			jobs.Register(q, w)
			start(t, q)
			res, err := q.Insert(context.Background(), exclusiveArgs{Key: "a"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			receiveArgs(t, w.started)
			waitForWaiters(t, clock, 2) // the sweeps and the run's renewals
			tc.lose(t, db, clock)
			select {
			case cause := <-w.ended:
				if !errors.Is(cause, jobs.ErrLeaseLost) {
					t.Fatalf("the run ended with %v, want ErrLeaseLost", cause)
				}
			case <-time.After(15 * time.Second):
				t.Fatal("the run went on without its lease")
			}
			testutil.Eventually(t, 10*time.Second, "the job to be retried", func() (bool, string) {
				s := jobState(t, db, res.Job.ID)
				return s == "retryable" || s == "available" || s == "running", "it is " + s
			})
		})
	}
}

// A run renewing its lease keeps it however long it works.
func TestALongRunKeepsItsLease(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	clock := newFakeClock()
	q, err := jobs.New(db.Pool, leaseConfig(clock), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	w := newBlockingWorker[exclusiveArgs]()
	jobs.Register(q, w)
	start(t, q)
	if _, err := q.Insert(context.Background(), exclusiveArgs{Key: "a"}, nil); err != nil {
		t.Fatal(err)
	}
	receiveArgs(t, w.started)
	var before time.Time
	if err := db.Pool.QueryRow(context.Background(), "SELECT expires_at FROM job_leases").Scan(&before); err != nil {
		t.Fatal(err)
	}
	// Ten renewals: five minutes of a lease of 30 s.
	for range 10 {
		waitForWaiters(t, clock, 2)
		clock.Advance(10 * time.Second)
	}
	waitForWaiters(t, clock, 2)
	var after time.Time
	if err := db.Pool.QueryRow(context.Background(), "SELECT expires_at FROM job_leases").Scan(&after); err != nil {
		t.Fatal(err)
	}
	if !after.After(before) {
		t.Fatalf("the lease was not renewed: %v then %v", before, after)
	}
	select {
	case cause := <-w.ended:
		t.Fatalf("the run ended: %v", cause)
	default:
	}
	close(w.release)
	if err := <-w.ended; err != nil {
		t.Fatal(err)
	}
}

// waitForWaiters waits until n goroutines wait on the clock.
func waitForWaiters(t *testing.T, clock *fakeClock, n int) {
	t.Helper()
	deadline := time.After(15 * time.Second)
	for {
		clock.mu.Lock()
		got := len(clock.waiters)
		clock.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-clock.waiting:
		case <-deadline:
			t.Fatalf("%d waiting on the clock, want %d", got, n)
		}
	}
}

// The jobs left running by a process that died are handed back by the sweep
// of any live instance once their lease has expired, or at once when they
// never took one; a live run's job is left alone.
func TestSweepHandsBackTheJobsOfADeadProcess(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	// The dead process: it enqueued three jobs and "ran" them, then died.
	dead, err := jobs.New(db.Pool, jobs.Config{LeaseTTL: 3 * time.Second}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	jobs.Register(dead, &pingWorker{})
	ids := map[string]int64{}
	for _, name := range []string{"expired", "no-lease", "live", "just-started"} {
		res, err := dead.Insert(ctx, pingArgs{N: len(ids) + 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = res.Job.ID
	}
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := db.Pool.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`UPDATE river_job SET state = 'running', attempt = 1, attempted_at = now() - interval '1 minute',
		attempted_by = ARRAY['dead-process'] WHERE id = ANY($1)`, []int64{ids["expired"], ids["no-lease"], ids["live"]})
	exec(`UPDATE river_job SET state = 'running', attempt = 1, attempted_at = now(), attempted_by = ARRAY['dead-process']
		WHERE id = $1`, ids["just-started"])
	exec(`INSERT INTO job_leases (key, job_id, attempt, holder, expires_at) VALUES
		($1, $2, 1, gen_random_uuid(), now() - interval '1 second'),
		($3, $4, 1, gen_random_uuid(), now() + interval '1 minute')`,
		fmt.Sprintf("job:%d", ids["expired"]), ids["expired"], fmt.Sprintf("job:%d", ids["live"]), ids["live"])

	w := &pingWorker{done: make(chan int, 4)}
	cfg := fastConfig()
	cfg.LeaseTTL = 3 * time.Second
	live := newQueue(t, db, cfg, w)
	n, err := live.Sweep(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Fatalf("swept %d jobs, want 2", n)
	}
	if again, err := live.Sweep(ctx); err != nil || again != 0 {
		t.Fatalf("a second sweep handed back %d (%v)", again, err)
	}
	for name, want := range map[string]string{"expired": "available", "no-lease": "available", "live": "running", "just-started": "running"} {
		if got := jobState(t, db, ids[name]); got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
	start(t, live)
	got := map[int]bool{receive(t, w.done): true, receive(t, w.done): true}
	if !got[1] || !got[2] {
		t.Fatalf("worked %v, want the two orphans", got)
	}
}

// Each queue has its own workers: e-mails and housekeeping go on while every
// push worker is busy, and pushes while every e-mail worker is.
func TestQueuesDoNotWaitForEachOther(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	cfg := fastConfig()
	cfg.Concurrency, cfg.PushConcurrency, cfg.MailConcurrency = 1, 1, 1
	q, err := jobs.New(db.Pool, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	push, mail := newBlockingWorker[pushArgs](), newBlockingWorker[mailArgs]()
	housekeeping := &pingWorker{done: make(chan int, 4)}
	jobs.Register(q, push)
	jobs.Register(q, mail)
	jobs.Register(q, housekeeping)
	start(t, q)
	ctx := context.Background()
	for i := range 2 {
		if _, err := q.Insert(ctx, pushArgs{N: i}, nil); err != nil {
			t.Fatal(err)
		}
	}
	receiveArgs(t, push.started) // the one push worker is busy, a push waits
	if _, err := q.Insert(ctx, mailArgs{N: 1}, nil); err != nil {
		t.Fatal(err)
	}
	receiveArgs(t, mail.started)
	if _, err := q.Insert(ctx, pingArgs{N: 7}, nil); err != nil {
		t.Fatal(err)
	}
	receive(t, housekeeping.done)
	// The e-mail worker is busy too; the waiting push goes as soon as the push
	// worker is free.
	push.release <- struct{}{}
	receiveArgs(t, push.started)
	close(push.release)
	close(mail.release)
	var queues []string
	rows, err := db.Pool.Query(ctx, "SELECT DISTINCT queue FROM river_job ORDER BY queue")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		queues = append(queues, s)
	}
	rows.Close()
	if fmt.Sprint(queues) != "[default mail push]" {
		t.Errorf("queues %v", queues)
	}
}

type pushArgs struct{ N int }

func (pushArgs) Kind() string { return "test_push" }
func (pushArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: jobs.QueuePush}
}

type mailArgs struct{ N int }

func (mailArgs) Kind() string { return "test_mail" }
func (mailArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: jobs.QueueMail}
}

func receiveArgs[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(15 * time.Second):
		t.Fatal("timed out waiting for a job to start")
		var zero T
		return zero
	}
}

// A finished job's worker moves on while its lease is given back; Stop waits
// for those, so no lease of a finished job is left to expire.
func TestFinishedJobsGiveTheirLeasesBackBeforeStopReturns(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	cfg := fastConfig()
	cfg.MailConcurrency = 2
	q, err := jobs.New(db.Pool, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	mail := newBlockingWorker[mailArgs]()
	close(mail.release)
	jobs.Register(q, mail)
	if err := q.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const n = 8 // the worker's channels hold 8
	for i := range n {
		if _, err := q.Insert(ctx, mailArgs{N: i}, nil); err != nil {
			t.Fatal(err)
		}
	}
	for range n {
		receiveArgs(t, mail.ended)
	}
	if err := q.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	var leases, held int
	if err := db.Pool.QueryRow(ctx, "SELECT count(*), count(*) FILTER (WHERE NOT released) FROM job_leases").Scan(&leases, &held); err != nil {
		t.Fatal(err)
	}
	if leases != n || held != 0 {
		t.Errorf("%d leases, %d of them still held after Stop; want %d, none held", leases, held, n)
	}
}
