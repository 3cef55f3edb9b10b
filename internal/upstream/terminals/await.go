package terminals

import (
	"context"
	"errors"
	"time"
)

// Watch is one launched transaction to follow until its result.
type Watch struct {
	// Location is where the transaction runs; its API key, when set, is
	// sent with each read.
	Location Location
	// UniqueTransID is the id the launch returned.
	UniqueTransID string
	// LaunchedAt starts the budget (Launched.At). Keep it with the
	// transaction so that following it again after a restart does not
	// grant a fresh five minutes. Zero means now.
	LaunchedAt time.Time
	// Done receives the end of the following, once, unless the watch is
	// forgotten first. It runs on one of the Poller's request slots: record
	// the result and return; do not block. Poller.Watch needs it;
	// AwaitResult ignores it.
	Done func(Finished)
}

// Finished is how the following of one transaction ended.
type Finished struct {
	UniqueTransID string
	// Result is the transaction's result; nil when Err is set.
	Result *Result
	// Err is why there is no result: ErrBudgetExceeded (also
	// ErrOutcomeUnknown) when the budget ran out, ErrNotFound,
	// ErrUnauthorized or ErrRejected when the cloud refused the reads.
	Err error
	// Polls counts the reads made, FailedPolls those that got no answer or
	// an error answer on the way.
	Polls, FailedPolls int
	// LaunchedAt is the watch's launch time; ReadAt when the result (or the
	// final error) was read.
	LaunchedAt, ReadAt time.Time
}

// endsPolling reports read errors that repeating cannot fix.
func endsPolling(err error) bool {
	return errors.Is(err, ErrNotFound) || errors.Is(err, ErrUnauthorized) ||
		errors.Is(err, ErrRejected) || errors.Is(err, ErrInvalid)
}

// AwaitResult follows one transaction in the calling goroutine on the
// client's PollPolicy and returns its result, or ErrBudgetExceeded (also
// ErrOutcomeUnknown), a refusal that ends the polling, or ctx's error. It
// suits one-off use (a command, a test); a service that follows many
// transactions uses a Poller.
func (c *Client) AwaitResult(ctx context.Context, w Watch) (*Result, error) {
	clock := c.cfg.Clock
	if w.LaunchedAt.IsZero() {
		w.LaunchedAt = clock.Now()
	}
	s := schedule{policy: c.cfg.Poll, launchedAt: w.LaunchedAt}
	due := s.first(clock.Now())
	polls := 0
	var last error
	for {
		if err := sleep(ctx, clock, due.Sub(clock.Now())); err != nil {
			return nil, err
		}
		start := clock.Now()
		polls++
		r, err := c.result(ctx, w.Location, w.UniqueTransID, 1)
		switch {
		case err == nil:
			return r, nil
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case endsPolling(err):
			return nil, err
		case errors.Is(err, ErrNotReady):
			last = nil
		default:
			last = err
		}
		var ok bool
		if due, ok = s.next(start, clock.Now()); !ok {
			return nil, &budgetError{id: w.UniqueTransID, polls: polls, last: last}
		}
	}
}
