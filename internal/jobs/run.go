package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
)

// hardStopWait bounds how long Stop waits for cancelled jobs to return once the
// caller's own deadline has passed.
const hardStopWait = 5 * time.Second

// Start begins working jobs, when this instance runs workers; otherwise it does
// nothing. Workers and periodic jobs registered later are refused.
func (q *Queue) Start(ctx context.Context) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.started {
		return errors.New("jobs: already started")
	}
	q.started = true
	if !q.cfg.RunWorkers {
		q.log.Info("job workers disabled on this instance (PORTAL_RUN_WORKERS=false)")
		return nil
	}
	runner, err := river.NewClient(riverpgxv5.New(q.pool), q.riverConfig())
	if err != nil {
		return fmt.Errorf("jobs: %w", err)
	}
	// The workers outlive the context of whoever starts them: Stop ends them.
	if err := runner.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("jobs: start: %w", err)
	}
	q.runner = runner
	sweepCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	q.stopSweep, q.swept = stop, make(chan struct{})
	go func() {
		defer close(q.swept)
		q.sweepLoop(sweepCtx)
	}()
	q.log.Info("job workers started", "default", q.cfg.Concurrency, "push", q.cfg.PushConcurrency, "mail", q.cfg.MailConcurrency,
		"webhooks", q.cfg.WebhookConcurrency, "lease", q.cfg.LeaseTTL)
	return nil
}

// mailPollInterval is how often the e-mail workers look for deliveries no notification
// announced: River announces new jobs at most once per fetch cooldown and queue, so in a
// burst a delivery queued just after an announcement may wait for the next poll. A
// second (River's default) made a few hand-off e-mails of a burst a second late; a
// fifth of one keeps them on time for a cheap query five times a second (issue 27).
func (q *Queue) mailPollInterval() time.Duration {
	if q.cfg.PollInterval > 0 {
		return min(q.cfg.PollInterval, mailPoll)
	}
	return mailPoll
}

// mailPoll is the e-mail workers' poll interval (mailPollInterval).
const mailPoll = 200 * time.Millisecond

func (q *Queue) riverConfig() *river.Config {
	cfg := &river.Config{
		Logger:       riverLogger(q.log),
		Workers:      q.workers,
		PeriodicJobs: q.periodic,
		Queues: map[string]river.QueueConfig{
			QueueDefault:  {MaxWorkers: q.cfg.Concurrency},
			QueuePush:     {MaxWorkers: q.cfg.PushConcurrency},
			QueueMail:     {MaxWorkers: q.cfg.MailConcurrency, FetchPollInterval: q.mailPollInterval()},
			QueueWebhooks: {MaxWorkers: q.cfg.WebhookConcurrency},
		},
		JobTimeout:           q.cfg.JobTimeout,
		RescueStuckJobsAfter: q.cfg.RescueAfter,
		SoftStopTimeout:      q.cfg.ShutdownTimeout,
		RetryPolicy:          retryPolicy{delay: q.cfg.RetryDelay},
		FetchCooldown:        q.fetchCooldown(),
	}
	if q.cfg.PollInterval > 0 {
		cfg.FetchPollInterval = q.cfg.PollInterval
	}
	if q.cfg.Instance != "" {
		cfg.ID = q.cfg.Instance + "_" + time.Now().UTC().Format("2006_01_02T15_04_05_000000")
	}
	return cfg
}

// Stop lets running jobs finish, then stops. Jobs still running after the
// configured ShutdownTimeout, or when ctx ends, are cancelled; River puts them
// back for a later attempt. Stop is a no-op on a queue that never started.
func (q *Queue) Stop(ctx context.Context) error {
	runner := q.takeRunner()
	if runner == nil {
		return nil
	}
	err := runner.Stop(ctx)
	defer q.leases.releasing.Wait()
	if err != nil && ctx.Err() != nil {
		// The caller will not wait any longer: cancel what still runs and give
		// it a moment to record its state.
		hardCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), hardStopWait)
		defer cancel()
		err = runner.StopAndCancel(hardCtx)
	}
	if err != nil {
		return fmt.Errorf("jobs: stop: %w", err)
	}
	q.log.Info("job workers stopped")
	return nil
}

// StopAndCancel cancels running jobs at once and stops; tests use it to end
// quickly.
func (q *Queue) StopAndCancel(ctx context.Context) error {
	runner := q.takeRunner()
	if runner == nil {
		return nil
	}
	defer q.leases.releasing.Wait()
	return runner.StopAndCancel(ctx)
}

// takeRunner ends the sweeps and hands the working client to the caller that stops it.
func (q *Queue) takeRunner() *river.Client[pgx.Tx] {
	q.mu.Lock()
	runner, stopSweep, swept := q.runner, q.stopSweep, q.swept
	q.runner, q.stopSweep = nil, nil
	q.mu.Unlock()
	if stopSweep != nil {
		stopSweep()
		<-swept
	}
	return runner
}

// Subscribe reports what happens to the jobs this instance works (completed,
// failed, cancelled, ...), for tests and monitoring. It needs running workers;
// call the returned function to unsubscribe.
func (q *Queue) Subscribe(kinds ...river.EventKind) (<-chan *river.Event, func(), error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.runner == nil {
		return nil, nil, errors.New("jobs: Subscribe needs started workers")
	}
	ch, cancel := q.runner.Subscribe(kinds...)
	return ch, cancel, nil
}
