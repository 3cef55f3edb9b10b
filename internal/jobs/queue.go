// Package jobs is the portal's durable background work: River on the portal's
// own PostgreSQL pool, so that a job is enqueued in the same transaction as the
// state change that calls for it.
//
// Wiring, in app.Build:
//
//	q, err := jobs.New(db.Pool, jobs.ConfigFrom(cfg.Workers), log)
//	jobs.Register(q, &pushWorker{...})         // every worker, before Start
//	q.AddPeriodic(river.NewPeriodicJob(...))   // periodic jobs, before Start
//	q.Start(ctx) ... q.Stop(ctx)               // in serve, and in apptest
//
// A use case that changes state and enqueues work does both atomically in one
// pgx transaction:
//
//	tx, err := db.Pool.Begin(ctx)
//	if err != nil { return err }
//	defer tx.Rollback(ctx) // a no-op after Commit
//	if _, err := tx.Exec(ctx, `UPDATE applications SET status = 'submitting' WHERE id = $1`, id); err != nil { return err }
//	if _, err := q.InsertTx(ctx, tx, PushArgs{ApplicationID: id}, nil); err != nil { return err }
//	return tx.Commit(ctx)
//
// Either both happen or neither does; the job becomes visible to workers at
// commit. Jobs run at least once (a worker may die after finishing the work
// but before recording it), so every worker must be safe to run twice.
package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/payportal/portal/internal/config"
)

// The queues. Each has its own workers, so that no kind of work waits behind another:
// pushes spend their time waiting on the upstream and run many at once; e-mails go out
// beside them; the default queue holds the periodic housekeeping.
const (
	QueueDefault = river.QueueDefault
	QueuePush    = "push"
	QueueMail    = "mail"
	// QueueWebhooks carries the partner webhooks' deliveries, so a slow receiver never
	// holds up a push or an e-mail.
	QueueWebhooks = "webhooks"
)

// Config is how this instance runs its jobs.
type Config struct {
	// RunWorkers makes this instance work jobs. Without it the queue only
	// enqueues, for web-only instances.
	RunWorkers bool
	// Concurrency bounds the jobs of the default queue this instance works at once.
	Concurrency int
	// PushConcurrency, MailConcurrency and WebhookConcurrency bound the jobs of
	// QueuePush, QueueMail and QueueWebhooks this instance works at once (1 when unset).
	PushConcurrency, MailConcurrency, WebhookConcurrency int
	// LeaseTTL is how long a running job's lease lasts without renewal; it bounds how
	// long the jobs of a dead process stay running (see Sweep). Default DefaultLeaseTTL.
	LeaseTTL time.Duration
	// Now and After are the clock of lease renewals and sweeps; nil means the real one.
	// Tests replace them to make a lease expire without waiting.
	Now   func() time.Time
	After func(time.Duration) <-chan time.Time
	// JobTimeout cancels a job's context after this long, unless its worker's
	// Timeout method says otherwise. Zero means River's default (one minute).
	JobTimeout time.Duration
	// RescueAfter is when a job still marked running is presumed orphaned by a
	// dead worker and retried. It must exceed JobTimeout.
	RescueAfter time.Duration
	// ShutdownTimeout is how long Stop lets running jobs finish before it
	// cancels them.
	ShutdownTimeout time.Duration
	// Instance names this process in River's client id (river_job.attempted_by,
	// the leader's id), followed by when the workers started, so that a
	// restarted instance is a new client. Empty: River's own (host and time).
	Instance string
	// PollInterval is how often workers look for jobs that no notification
	// announced, such as retries coming due. Zero means River's default (one
	// second); tests shorten it.
	PollInterval time.Duration
	// RetryDelay is the wait before a failed job's next attempt, by the number
	// of the attempt that failed (1 for the first). Nil means DefaultRetryDelay.
	RetryDelay func(attempt int) time.Duration
}

// ConfigFrom turns the portal's worker settings into a queue Config.
func ConfigFrom(c config.WorkerConfig) Config {
	return Config{
		RunWorkers:         c.Run,
		Concurrency:        c.Concurrency,
		PushConcurrency:    c.PushConcurrency,
		MailConcurrency:    c.MailConcurrency,
		WebhookConcurrency: c.WebhookConcurrency,
		LeaseTTL:           c.LeaseTTL,
		JobTimeout:         c.JobTimeout,
		RescueAfter:        c.RescueAfter,
		ShutdownTimeout:    c.ShutdownTimeout,
	}
}

// Queue enqueues jobs and, on instances that run workers, works them.
type Queue struct {
	pool    *pgxpool.Pool
	cfg     Config
	log     *slog.Logger
	workers *river.Workers
	leases  *leases
	// inserter enqueues from the moment New returns; it never works jobs, so
	// workers may still be registered after it exists.
	inserter *river.Client[pgx.Tx]

	mu       sync.Mutex
	periodic []*river.PeriodicJob
	runner   *river.Client[pgx.Tx] // the working client, from Start to Stop
	started  bool
	// stopSweep ends the sweeps of orphaned jobs; swept is closed when they have.
	stopSweep context.CancelFunc
	swept     chan struct{}
}

// New returns a queue on pool. It enqueues at once; it works jobs only after
// Start, and only when cfg.RunWorkers is set.
func New(pool *pgxpool.Pool, cfg Config, log *slog.Logger) (*Queue, error) {
	cfg.Concurrency = max(cfg.Concurrency, 1)
	cfg.PushConcurrency = max(cfg.PushConcurrency, 1)
	cfg.MailConcurrency = max(cfg.MailConcurrency, 1)
	cfg.WebhookConcurrency = max(cfg.WebhookConcurrency, 1)
	if cfg.LeaseTTL <= 0 {
		cfg.LeaseTTL = DefaultLeaseTTL
	}
	if cfg.RetryDelay == nil {
		cfg.RetryDelay = DefaultRetryDelay
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.After == nil {
		cfg.After = time.After
	}
	q := &Queue{pool: pool, cfg: cfg, log: log, workers: river.NewWorkers(),
		leases: &leases{pool: pool, ttl: cfg.LeaseTTL, now: cfg.Now, after: cfg.After, log: log}}
	inserter, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		Logger:  riverLogger(log),
		Workers: q.workers,
		// The inserting client announces new jobs at most this often per queue.
		FetchCooldown: q.fetchCooldown(),
	})
	if err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	q.inserter = inserter
	return q, nil
}

// Register adds the worker of one job kind. Call it while wiring the portal,
// before Start and before the first insert; like river.AddWorker it panics on a
// programming error (a kind registered twice, or registration after Start).
//
// Every run of the job holds a lease while it works (see Sweep): of the job itself,
// or, when the arguments implement Exclusive, of their LeaseKey, so that two runs
// with the same key never work at once; a run that finds the key held waits.
func Register[T river.JobArgs](q *Queue, w river.Worker[T]) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.started {
		panic(fmt.Sprintf("jobs: worker for %q registered after Start", (*new(T)).Kind()))
	}
	river.AddWorker[T](q.workers, &leasedWorker[T]{Worker: w, l: q.leases})
}

// AddPeriodic schedules a job to be enqueued at intervals by whichever running
// instance leads. Call it while wiring, before Start. Use a unique InsertOpts
// in the constructor when two overlapping runs would be wrong.
func (q *Queue) AddPeriodic(job *river.PeriodicJob) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.started {
		panic("jobs: periodic job added after Start")
	}
	q.periodic = append(q.periodic, job)
}

// defaultFetchCooldown is the shortest time between two fetches of one queue's workers,
// and between two announcements of new jobs on one queue. River's default of 100 ms made
// a push submitted just after another finished wait up to 100 ms for a worker, a tenth of
// a push; a fetch of an idle queue is a cheap query, so 10 ms costs little.
const defaultFetchCooldown = 10 * time.Millisecond

// fetchCooldown is defaultFetchCooldown, or a shorter poll interval (River requires the
// cooldown to be no longer than the poll).
func (q *Queue) fetchCooldown() time.Duration {
	if q.cfg.PollInterval > 0 {
		return min(q.cfg.PollInterval, defaultFetchCooldown)
	}
	return defaultFetchCooldown
}

// Insert enqueues a job on its own. Prefer InsertTx inside the transaction of
// the state change that calls for the job.
func (q *Queue) Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error) {
	res, err := q.inserter.Insert(ctx, args, opts)
	if err != nil {
		return nil, fmt.Errorf("enqueue %s: %w", args.Kind(), err)
	}
	return res, nil
}

// InsertTx enqueues a job inside tx: it exists, and workers see it, only once
// tx commits.
func (q *Queue) InsertTx(ctx context.Context, tx pgx.Tx, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error) {
	if tx == nil {
		return nil, errors.New("jobs: InsertTx needs a transaction; use Insert without one")
	}
	res, err := q.inserter.InsertTx(ctx, tx, args, opts)
	if err != nil {
		return nil, fmt.Errorf("enqueue %s: %w", args.Kind(), err)
	}
	return res, nil
}

// Client is the River client for what the queue does not wrap, such as
// JobList or JobCancel. It never works jobs.
func (q *Queue) Client() *river.Client[pgx.Tx] { return q.inserter }

// RetryDelay is the wait before the next attempt after attempt failed, as the
// queue schedules it, so a worker can tell people when it will try again.
func (q *Queue) RetryDelay(attempt int) time.Duration { return q.cfg.RetryDelay(attempt) }

// RunsWorkers reports whether this instance works jobs.
func (q *Queue) RunsWorkers() bool { return q.cfg.RunWorkers }
