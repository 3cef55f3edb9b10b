package terminals

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/payportal/portal/internal/upstream/transport"
)

// Defaults of Config.
const (
	DefaultTimeout        = 30 * time.Second
	DefaultMaxAttempts    = 3
	DefaultRetryBaseDelay = 250 * time.Millisecond
	DefaultRetryMaxDelay  = 5 * time.Second
	DefaultMaxRetryAfter  = 30 * time.Second
)

// Config configures a Client. One Client serves every merchant: the API
// key and location travel with each call (see Location).
type Config struct {
	// BaseURL is the cloud's address, without a version segment, e.g.
	// https://cloud.example or the sandbox's root.
	BaseURL string
	// Timeout bounds each attempt of a call. Default 30 s.
	Timeout time.Duration
	// MaxAttempts bounds the attempts of one call, the first included.
	// Default 3; 1 turns retries off. A launch is repeated only when the
	// cloud certainly did not receive it.
	MaxAttempts int
	// RetryBaseDelay is the wait before the second attempt; it doubles for
	// each further one, up to RetryMaxDelay, with jitter. Defaults 250 ms
	// and 5 s.
	RetryBaseDelay, RetryMaxDelay time.Duration
	// MaxRetryAfter caps the wait a 429 or 503 asks for with Retry-After.
	// Default 30 s.
	MaxRetryAfter time.Duration
	// Poll is the result polling schedule of AwaitResult and of Pollers
	// made from this client. Zero fields take their defaults.
	Poll PollPolicy
	// HTTPClient sends the requests. Default: a client of its own whose
	// transport keeps enough idle connections for a Poller's requests.
	HTTPClient *http.Client
	// Logger receives one line per attempt: operation, method, path,
	// status, duration. Never an API key nor a body. Default: discard.
	Logger *slog.Logger
	// Clock tells the time and makes the timers of retries and polling.
	// Default: the wall clock.
	Clock Clock
	// UserAgent is sent with every request. Default "payportal-terminals/1".
	UserAgent string
}

// withDefaults fills the zero values, checks the polling schedule and
// builds the transport that makes the calls.
func (c Config) withDefaults() (Config, *transport.Client, error) {
	var err error
	if c.Poll, err = c.Poll.withDefaults(); err != nil {
		return c, nil, err
	}
	if c.Clock == nil {
		c.Clock = SystemClock{}
	}
	clock := c.Clock
	t, err := transport.New(transport.Config{
		Name: "terminals", BaseURL: c.BaseURL, Timeout: c.Timeout, MaxAttempts: c.MaxAttempts,
		RetryBaseDelay: c.RetryBaseDelay, RetryMaxDelay: c.RetryMaxDelay, MaxRetryAfter: c.MaxRetryAfter,
		HTTPClient: c.HTTPClient, Logger: c.Logger, Now: clock.Now, UserAgent: c.UserAgent, LogAnswer: logEnvelope,
		Sleep: func(ctx context.Context, d time.Duration) error { return sleep(ctx, clock, d) },
	}, transport.Defaults{
		Timeout: DefaultTimeout, MaxAttempts: DefaultMaxAttempts, RetryBaseDelay: DefaultRetryBaseDelay,
		RetryMaxDelay: DefaultRetryMaxDelay, MaxRetryAfter: DefaultMaxRetryAfter,
		// A Poller keeps up to its MaxInFlight requests open to one host.
		IdleConnsPerHost: 64, UserAgent: "payportal-terminals/1",
	})
	return c, t, err
}

// Defaults of PollPolicy.
const (
	DefaultFirstPoll    = time.Second
	DefaultPollInterval = time.Second
	DefaultBackoffAfter = 30 * time.Second
	DefaultMaxInterval  = 5 * time.Second
	DefaultPollBudget   = 5 * time.Minute
)

// PollPolicy is the schedule on which a launched transaction's result is
// read. Times count from the launch, so a transaction resumed after a
// restart keeps its budget.
type PollPolicy struct {
	// FirstPoll is the wait from the launch to the first read. Default 1 s:
	// no cardholder finishes sooner.
	FirstPoll time.Duration
	// Interval separates the starts of two reads of one transaction (a
	// read that takes longer is followed at once by the next). Default 1 s.
	Interval time.Duration
	// BackoffAfter is the time from the launch after which the interval
	// doubles with each read, up to MaxInterval. Defaults 30 s and 5 s.
	BackoffAfter, MaxInterval time.Duration
	// Budget is the cardholder time allowed from the launch; a result not
	// ready by then ends the polling with ErrBudgetExceeded, after one last
	// read at the deadline. Default 5 min.
	Budget time.Duration
}

// withDefaults fills the zero values and checks the rest.
func (p PollPolicy) withDefaults() (PollPolicy, error) {
	if p.FirstPoll < 0 || p.Interval < 0 || p.BackoffAfter < 0 || p.MaxInterval < 0 || p.Budget < 0 {
		return p, errors.New("terminals: poll durations must not be negative")
	}
	p.FirstPoll = cmp.Or(p.FirstPoll, DefaultFirstPoll)
	p.Interval = cmp.Or(p.Interval, DefaultPollInterval)
	p.BackoffAfter = cmp.Or(p.BackoffAfter, DefaultBackoffAfter)
	p.MaxInterval = max(cmp.Or(p.MaxInterval, DefaultMaxInterval), p.Interval)
	p.Budget = cmp.Or(p.Budget, DefaultPollBudget)
	return p, nil
}

// schedule is where one transaction stands in its polling.
type schedule struct {
	policy     PollPolicy
	launchedAt time.Time
	interval   time.Duration // between the starts of the last two reads
}

// first returns when to make the first read: FirstPoll after the launch,
// or now when that has passed (a transaction resumed after a restart).
func (s *schedule) first(now time.Time) time.Time {
	s.interval = s.policy.Interval
	return later(s.launchedAt.Add(s.policy.FirstPoll), now)
}

// deadline is the end of the cardholder's budget.
func (s *schedule) deadline() time.Time { return s.launchedAt.Add(s.policy.Budget) }

// next returns when to read again after a read that started at start and
// ended at end without a result, or ok false when the budget is spent: the
// read that started at or after the deadline was the last.
func (s *schedule) next(start, end time.Time) (due time.Time, ok bool) {
	deadline := s.deadline()
	if !start.Before(deadline) {
		return time.Time{}, false
	}
	if start.Sub(s.launchedAt) >= s.policy.BackoffAfter {
		s.interval = min(s.interval*2, s.policy.MaxInterval)
	}
	due = later(start.Add(s.interval), end)
	// One last read at the deadline rather than none after it.
	return earlier(due, later(deadline, end)), true
}

// later returns the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// earlier returns the earlier of a and b.
func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
