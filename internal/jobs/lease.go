package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
)

// DefaultLeaseTTL is how long a running job's lease lasts without being renewed. A job
// whose process died is handed back to the queue at most this long after its last
// renewal (plus one sweep, a third of it), so it also bounds the recovery after a crash.
const DefaultLeaseTTL = 15 * time.Second

// ErrLeaseLost is the cause of a job's context when its lease could not be renewed in
// time (the database was out of reach, or the lease was taken over after it expired):
// the run stops before anyone else may start one.
var ErrLeaseLost = errors.New("jobs: lease lost")

// Exclusive is implemented by job arguments whose runs must not overlap beyond the one
// job: two runs holding the same LeaseKey never work at once, whichever jobs they belong
// to. An application's push uses the application's id.
type Exclusive interface {
	LeaseKey() string
}

// leases holds, renews and gives back the leases of this instance's running jobs.
type leases struct {
	pool *pgxpool.Pool
	ttl  time.Duration
	// now and after are the clock of the renewals; tests replace them.
	now   func() time.Time
	after func(time.Duration) <-chan time.Time
	log   *slog.Logger
	// releasing counts the leases being given back after their run returned (see
	// leasedWorker.Work); Stop waits for them.
	releasing sync.WaitGroup
}

// renewEvery is how often a lease is renewed: three chances before it expires.
func (l *leases) renewEvery() time.Duration { return l.ttl / 3 }

// stopBefore is how long before the lease's expiry a run that could not renew it stops,
// measured from when the last successful renewal was sent (the database's expiry is
// counted from when it arrived, later).
func (l *leases) stopBefore() time.Duration { return l.ttl / 10 }

// leasedWorker runs its worker's jobs only while holding their lease.
type leasedWorker[T river.JobArgs] struct {
	river.Worker[T]
	l *leases
}

// Work takes the job's lease, or snoozes the job while another run holds it, works the
// job while renewing the lease, and gives the lease back.
func (w *leasedWorker[T]) Work(ctx context.Context, job *river.Job[T]) error {
	key := "job:" + strconv.FormatInt(job.ID, 10)
	ex, exclusive := any(job.Args).(Exclusive)
	if exclusive {
		key = ex.LeaseKey()
	}
	holder := uuid.New()
	held, wait, err := w.l.acquire(ctx, key, job.ID, job.Attempt, holder)
	if err != nil {
		return err
	}
	if !held {
		w.l.log.Info("job waits: its lease is held by another run", "job_id", job.ID, "kind", job.Kind, "lease", key)
		return river.JobSnooze(wait)
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	kept := make(chan struct{})
	stop := make(chan struct{})
	go func() {
		defer close(kept)
		w.l.keep(runCtx, cancel, key, holder, stop)
	}()
	err = w.Worker.Work(runCtx, job)
	close(stop)
	<-kept
	if cause := context.Cause(runCtx); errors.Is(cause, ErrLeaseLost) {
		// Whatever the worker returned, it was stopped: say why.
		return fmt.Errorf("%w (job %d): %w", ErrLeaseLost, job.ID, errors.Join(err, cause))
	}
	if err == nil && !exclusive {
		// Nobody else takes a finished job's own lease, so the worker moves on to
		// the next job (an e-mail, say) while the lease is given back: under a busy
		// pool that wait was a quarter of an e-mail's delivery (issue 27).
		w.l.releasing.Go(func() { w.l.giveBack(context.WithoutCancel(ctx), key, holder, job.ID) })
		return nil
	}
	w.l.giveBack(context.WithoutCancel(ctx), key, holder, job.ID)
	return err
}

// giveBack releases the lease, or leaves it to expire when that fails; the sweeper
// then finds the job finished.
func (l *leases) giveBack(ctx context.Context, key string, holder uuid.UUID, jobID int64) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := l.release(ctx, key, holder); err != nil {
		l.log.Warn("job lease not given back", "job_id", jobID, "lease", key, "err", err)
	}
}

// acquire takes the lease of key for one attempt of a job, unless another run holds it
// and it has not expired; wait is then about when it will be free. The expiry is counted
// by the database's clock, the one every instance shares.
func (l *leases) acquire(ctx context.Context, key string, jobID int64, attempt int, holder uuid.UUID) (held bool, wait time.Duration, err error) {
	var got bool
	err = l.pool.QueryRow(ctx, `INSERT INTO job_leases (key, job_id, attempt, holder, expires_at)
		VALUES ($1, $2, $3, $4, now() + $5 * interval '1 microsecond')
		ON CONFLICT (key) DO UPDATE SET job_id = EXCLUDED.job_id, attempt = EXCLUDED.attempt,
			holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at, released = false
		WHERE job_leases.released OR job_leases.expires_at <= now()
		RETURNING true`, key, jobID, attempt, holder, l.ttl.Microseconds()).Scan(&got)
	if err == nil {
		return true, 0, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return false, 0, fmt.Errorf("jobs: take lease %s: %w", key, err)
	}
	var left time.Duration
	err = l.pool.QueryRow(ctx, `SELECT greatest(expires_at - now(), interval '0') FROM job_leases WHERE key = $1`, key).Scan(&left)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return false, 0, fmt.Errorf("jobs: read lease %s: %w", key, err)
	}
	// Look again a little after the holder would renew, at most a lease later.
	return false, min(max(left, time.Second), l.ttl) + l.renewEvery()/2, nil
}

// keep renews the lease until stop closes. When a renewal finds the lease gone (taken
// over after it expired) or none succeeds before the lease would expire, it cancels the
// run with ErrLeaseLost.
func (l *leases) keep(ctx context.Context, cancel context.CancelCauseFunc, key string, holder uuid.UUID, stop <-chan struct{}) {
	deadline := l.now().Add(l.ttl - l.stopBefore())
	for {
		wait := min(l.renewEvery(), max(deadline.Sub(l.now()), 0))
		select {
		case <-stop:
			return
		case <-l.after(wait):
		}
		sent := l.now()
		if !sent.Before(deadline) {
			l.log.Error("job lease expired before it could be renewed; stopping the run", "lease", key)
			cancel(ErrLeaseLost)
			return
		}
		rctx, rcancel := context.WithDeadline(context.WithoutCancel(ctx), deadline)
		renewed, err := l.renew(rctx, key, holder)
		rcancel()
		switch {
		case err == nil && renewed:
			deadline = sent.Add(l.ttl - l.stopBefore())
		case err == nil:
			l.log.Error("job lease taken over; stopping the run", "lease", key)
			cancel(ErrLeaseLost)
			return
		default:
			l.log.Warn("job lease not renewed; trying again", "lease", key, "err", err)
		}
	}
}

// renew extends the lease by a TTL from now, if holder still has it.
func (l *leases) renew(ctx context.Context, key string, holder uuid.UUID) (bool, error) {
	tag, err := l.pool.Exec(ctx, `UPDATE job_leases SET expires_at = now() + $3 * interval '1 microsecond'
		WHERE key = $1 AND holder = $2 AND NOT released`, key, holder, l.ttl.Microseconds())
	if err != nil {
		return false, fmt.Errorf("jobs: renew lease %s: %w", key, err)
	}
	return tag.RowsAffected() == 1, nil
}

// release gives the lease back. The row stays, marked released, until the sweeper
// removes it.
func (l *leases) release(ctx context.Context, key string, holder uuid.UUID) error {
	if _, err := l.pool.Exec(ctx, `UPDATE job_leases SET released = true WHERE key = $1 AND holder = $2`, key, holder); err != nil {
		return fmt.Errorf("jobs: release lease %s: %w", key, err)
	}
	return nil
}
