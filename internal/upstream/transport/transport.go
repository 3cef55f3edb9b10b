// Package transport is the HTTP plumbing every upstream client shares: one
// attempt of a request (a timeout of its own, whether it was fully written,
// the answer read within a bound), the waits between attempts (exponential
// backoff with jitter, or the Retry-After the upstream asked for, capped),
// the reading of a refusal in any of the processor's error shapes, and one
// log line per attempt that never holds a token, a body, a query or card
// data.
//
// It knows nothing of the portal, nor of any area of the processor: each
// client (internal/upstream/accounts, payments, terminals, sandboxadmin)
// keeps its own public API, its own errors and its own rules for what may
// be repeated (idempotency keys, reading an unknown outcome back), and
// calls Send, Do and Pause for the rest.
package transport

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Config configures a Client. The zero value of a field takes its default.
type Config struct {
	// Name names the client in its errors ("payments: base URL ...") and
	// its log lines ("payments call").
	Name string
	// BaseURL is the API's address; a request's Path is appended to it.
	BaseURL string
	// Timeout bounds each attempt.
	Timeout time.Duration
	// MaxAttempts bounds the attempts of one request, the first included;
	// 1 turns retries off.
	MaxAttempts int
	// RetryBaseDelay is the wait before the second attempt; it doubles for
	// each further one, up to RetryMaxDelay, half of it random.
	RetryBaseDelay, RetryMaxDelay time.Duration
	// MaxRetryAfter caps the wait an upstream asks for with Retry-After.
	MaxRetryAfter time.Duration
	// HTTPClient sends the requests. Default: a client of its own with no
	// overall timeout (each attempt has one) that keeps IdleConnsPerHost
	// idle connections to each host.
	HTTPClient *http.Client
	// IdleConnsPerHost sizes the default HTTP client's pool.
	IdleConnsPerHost int
	// Logger receives one line per attempt. Default: discard.
	Logger *slog.Logger
	// Now tells the time, for Retry-After dates. Default time.Now.
	Now func() time.Time
	// Sleep waits between attempts; it returns ctx's error when ctx ends
	// first. Default: a timer. Tests replace it to record the waits.
	Sleep func(ctx context.Context, d time.Duration) error
	// UserAgent is sent with every request.
	UserAgent string
	// LogAnswer adds attributes of an answer's body to its log line (the
	// terminal cloud's envelope status); it must never return a secret.
	LogAnswer func(body []byte) []any
}

// Defaults are a client's own defaults for the fields of Config left zero.
type Defaults struct {
	Timeout                       time.Duration
	MaxAttempts                   int
	RetryBaseDelay, RetryMaxDelay time.Duration
	MaxRetryAfter                 time.Duration
	IdleConnsPerHost              int
	UserAgent                     string
}

// Client sends requests to one upstream API. It is safe for concurrent use.
type Client struct {
	cfg Config
}

// New checks cfg, fills its zero fields from def and builds a Client. It
// makes no request.
func New(cfg Config, def Defaults) (*Client, error) {
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s: base URL %q is not an absolute http(s) URL", cfg.Name, cfg.BaseURL)
	}
	if cfg.Timeout < 0 || cfg.MaxAttempts < 0 || cfg.RetryBaseDelay < 0 || cfg.RetryMaxDelay < 0 || cfg.MaxRetryAfter < 0 {
		return nil, fmt.Errorf("%s: timeouts, delays and attempts must not be negative", cfg.Name)
	}
	cfg.BaseURL = strings.TrimSuffix(cfg.BaseURL, "/")
	cfg.Timeout = cmp.Or(cfg.Timeout, def.Timeout)
	cfg.MaxAttempts = cmp.Or(cfg.MaxAttempts, def.MaxAttempts, 1)
	cfg.RetryBaseDelay = cmp.Or(cfg.RetryBaseDelay, def.RetryBaseDelay)
	cfg.RetryMaxDelay = max(cmp.Or(cfg.RetryMaxDelay, def.RetryMaxDelay), cfg.RetryBaseDelay)
	cfg.MaxRetryAfter = cmp.Or(cfg.MaxRetryAfter, def.MaxRetryAfter)
	cfg.UserAgent = cmp.Or(cfg.UserAgent, def.UserAgent)
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = newHTTPClient(cmp.Or(cfg.IdleConnsPerHost, def.IdleConnsPerHost))
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleep
	}
	return &Client{cfg: cfg}, nil
}

// newHTTPClient is a client of its own that keeps perHost idle connections
// to each host: many requests go out at once (pushes with their documents,
// every cashier's sales, a poller's reads), and net/http's default of two
// would close the rest after each burst and dial (and, over TLS, handshake)
// them again for the next.
func newHTTPClient(perHost int) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	if perHost > 0 {
		t.MaxIdleConns, t.MaxIdleConnsPerHost = 2*perHost, perHost
	}
	return &http.Client{Transport: t}
}

// sleep waits for d or until ctx ends (time.After's timer is collected
// once it is unreachable, so an early return leaks nothing).
func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// BaseURL is the API's address, without a trailing slash.
func (c *Client) BaseURL() string { return c.cfg.BaseURL }

// MaxAttempts is how many attempts a request gets unless it says otherwise.
func (c *Client) MaxAttempts() int { return c.cfg.MaxAttempts }

// Now tells the time on the client's clock.
func (c *Client) Now() time.Time { return c.cfg.Now() }
