package terminals

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
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

// withDefaults fills the zero values and checks the rest.
func (c Config) withDefaults() (Config, error) {
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return c, fmt.Errorf("terminals: base URL %q is not an absolute http(s) URL", c.BaseURL)
	}
	if c.Timeout < 0 || c.MaxAttempts < 0 || c.RetryBaseDelay < 0 || c.RetryMaxDelay < 0 || c.MaxRetryAfter < 0 {
		return c, errors.New("terminals: timeouts, delays and attempts must not be negative")
	}
	if c.Poll, err = c.Poll.withDefaults(); err != nil {
		return c, err
	}
	c.BaseURL = strings.TrimSuffix(c.BaseURL, "/")
	c.Timeout = or(c.Timeout, DefaultTimeout)
	c.MaxAttempts = or(c.MaxAttempts, DefaultMaxAttempts)
	c.RetryBaseDelay = or(c.RetryBaseDelay, DefaultRetryBaseDelay)
	c.RetryMaxDelay = max(or(c.RetryMaxDelay, DefaultRetryMaxDelay), c.RetryBaseDelay)
	c.MaxRetryAfter = or(c.MaxRetryAfter, DefaultMaxRetryAfter)
	if c.HTTPClient == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		// A Poller keeps up to its MaxInFlight requests open to one host;
		// the default of 2 idle connections per host would make it dial
		// again and again.
		tr.MaxIdleConnsPerHost = 64
		c.HTTPClient = &http.Client{Transport: tr}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Clock == nil {
		c.Clock = SystemClock{}
	}
	if c.UserAgent == "" {
		c.UserAgent = "payportal-terminals/1"
	}
	return c, nil
}

// or returns v, or def when v is the zero value.
func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
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
	p.FirstPoll = or(p.FirstPoll, DefaultFirstPoll)
	p.Interval = or(p.Interval, DefaultPollInterval)
	p.BackoffAfter = or(p.BackoffAfter, DefaultBackoffAfter)
	p.MaxInterval = max(or(p.MaxInterval, DefaultMaxInterval), p.Interval)
	p.Budget = or(p.Budget, DefaultPollBudget)
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
