package transport

import (
	"cmp"
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Next is what a client's rule says after an attempt that did not succeed.
type Next int

const (
	// Stop says the answer is final: repeating the request cannot help, or
	// must not be done.
	Stop Next = iota
	// Again repeats the request after a wait, while attempts are left.
	Again
	// AgainNow repeats it at once without spending an attempt (the client
	// has just replaced a refused token).
	AgainNow
)

// Do sends req, and again while decide says so and attempts are left
// (req.Attempts, else the client's MaxAttempts), waiting between attempts as
// Pause does. decide sees every answer, 2xx included (a client may find a
// 2xx body unreadable and read again): it says Stop for a final one. Do
// returns the last answer. err is set only when the request could not be
// made (Prepare or Stream failed) or ctx ended; the answer is then the last
// one received.
func (c *Client) Do(ctx context.Context, req Request, decide func(Answer) Next) (Answer, error) {
	attempts := cmp.Or(req.Attempts, c.cfg.MaxAttempts)
	for n, spent := 1, 1; ; n++ {
		a, err := c.Send(ctx, req, n)
		if err != nil {
			return a, err
		}
		next := decide(a)
		switch {
		case next == Stop:
			return a, nil
		case ctx.Err() != nil:
			return a, ctx.Err()
		case next == AgainNow:
			continue
		case spent >= attempts:
			return a, nil
		}
		if err := c.Pause(ctx, req, a); err != nil {
			return a, err
		}
		spent++
	}
}

// RepeatWhen is the decide of Do for the common rule: a 2xx is final; any
// other answer is repeated when repeat says so.
func RepeatWhen(repeat func(Answer) bool) func(Answer) Next {
	return func(a Answer) Next {
		if a.OK() || !repeat(a) {
			return Stop
		}
		return Again
	}
}

// Pause waits before the attempt after a: the Retry-After the upstream asked
// for (capped at MaxRetryAfter), else the backoff of a's attempt. It logs the
// wait and returns ctx's error when ctx ends first.
func (c *Client) Pause(ctx context.Context, req Request, a Answer) error {
	wait := c.Backoff(a.Attempt)
	if a.RetryAfter > 0 {
		wait = min(a.RetryAfter, c.cfg.MaxRetryAfter)
	}
	key, where := req.where()
	attrs := make([]any, 0, 12)
	if req.Op != "" {
		attrs = append(attrs, "op", req.Op)
	}
	attrs = append(attrs, "method", req.Method, key, where, "attempt", a.Attempt, "status", a.Status, "wait", wait)
	c.cfg.Logger.Info(c.cfg.Name+" call will be retried", attrs...)
	return c.cfg.Sleep(ctx, wait)
}

// Backoff is the wait after attempt n: RetryBaseDelay·2^(n-1), capped at
// RetryMaxDelay, of which half is random ("equal jitter"), so that clients
// that failed together do not all come back at once.
func (c *Client) Backoff(n int) time.Duration {
	d := c.cfg.RetryBaseDelay
	for i := 1; i < n && d < c.cfg.RetryMaxDelay; i++ {
		d *= 2
	}
	d = min(d, c.cfg.RetryMaxDelay)
	half := d / 2
	return half + time.Duration(rand.Int64N(int64(half)+1))
}

// RetryAfter reads a Retry-After header: whole seconds, or an HTTP date
// (counted from now). Anything else, or a date already past, is 0.
func RetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil && secs >= 0 {
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// Unsent reports an attempt the upstream certainly did not act on: the
// request was not fully written, or it was refused as rate limited (429)
// before any work.
func (a Answer) Unsent() bool {
	return a.Status == http.StatusTooManyRequests || (a.Status == 0 && !a.Sent)
}

// Transient reports an attempt after which a request that is safe to repeat
// (a read, an idempotent write) is worth sending again: no answer, 429, 502,
// 503 or 504.
func (a Answer) Transient() bool {
	switch a.Status {
	case 0, http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// Temporary reports a failed call that may succeed if made again later,
// given its status (0: no answer) and, with no answer, the transport's
// error: no answer unless the caller cancelled, 408, 425, 429, 500, 502,
// 503, 504.
func Temporary(status int, err error) bool {
	switch status {
	case 0:
		return !errors.Is(err, context.Canceled)
	case http.StatusRequestTimeout, http.StatusTooEarly, http.StatusTooManyRequests,
		http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}
