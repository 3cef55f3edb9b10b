package terminals

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Client calls the terminal cloud. It is safe for concurrent use; one
// Client serves every merchant and location.
type Client struct {
	cfg Config
	log *slog.Logger
}

// New checks cfg and builds a Client. It makes no request.
func New(cfg Config) (*Client, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Client{cfg: cfg, log: cfg.Logger}, nil
}

// Location is what a call needs to know of a merchant's location: its id,
// the merchant's API key, and whether it is a test location (TestMode on
// every launch).
type Location struct {
	ID     string
	APIKey string
	// TestMode marks every transaction launched at the location as a test.
	// The cloud refuses TestMode false on a test location.
	TestMode bool
}

// retryPolicy says when a failed call may be repeated.
type retryPolicy int

const (
	// retryReads repeats reads after no answer, 429, 502, 503 and 504.
	retryReads retryPolicy = iota
	// retryUnreceived repeats a launch only when the cloud certainly did
	// not receive it: the request was not fully written, or 429.
	retryUnreceived
)

// allows reports whether the policy repeats after res.
func (p retryPolicy) allows(res attemptResult) bool {
	switch res.status {
	case 0:
		return p == retryReads || !res.sent
	case http.StatusTooManyRequests:
		return true
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return p == retryReads
	}
	return false
}

// call describes one API call.
type call struct {
	op       string
	method   string
	path     string // below the base URL, ids escaped
	apiKey   string // sent as x-apikey when not empty
	body     any
	policy   retryPolicy
	attempts int // 0: Config.MaxAttempts
}

// maxAnswer bounds the answers the client reads.
const maxAnswer = 1 << 20

// do runs a call with its retries and returns the envelope of a 2xx answer,
// an *Error, or the context's error wrapped.
func (c *Client) do(ctx context.Context, cl call) (*envelope, error) {
	var payload []byte
	if cl.body != nil {
		var err error
		if payload, err = json.Marshal(cl.body); err != nil {
			return nil, fmt.Errorf("terminals %s: encode body: %w", cl.op, err)
		}
	}
	attempts := or(cl.attempts, c.cfg.MaxAttempts)
	for attempt := 1; ; attempt++ {
		res := c.attempt(ctx, cl, payload, attempt)
		if res.err == nil {
			return res.env, nil
		}
		if ctx.Err() != nil && res.status == 0 {
			res.err.Err = ctx.Err()
			return nil, res.err
		}
		if attempt >= attempts || !cl.policy.allows(res) {
			return nil, res.err
		}
		wait := backoff(attempt, c.cfg.RetryBaseDelay, c.cfg.RetryMaxDelay)
		if res.retryAfter > 0 {
			wait = min(res.retryAfter, c.cfg.MaxRetryAfter)
		}
		c.log.Info("terminal cloud call will be retried", "op", cl.op, "method", cl.method, "path", cl.path,
			"attempt", attempt, "status", res.status, "wait", wait)
		if err := sleep(ctx, c.cfg.Clock, wait); err != nil {
			return nil, fmt.Errorf("terminals %s %s %s: %w", cl.op, cl.method, cl.path, err)
		}
	}
}

// attemptResult is the outcome of one attempt.
type attemptResult struct {
	env        *envelope
	err        *Error
	status     int  // 0 when no answer arrived
	sent       bool // the whole request was written
	retryAfter time.Duration
}

// attempt makes one request, bounded by the attempt timeout.
func (c *Client) attempt(ctx context.Context, cl call, payload []byte, n int) attemptResult {
	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	var sent atomic.Bool
	actx = httptrace.WithClientTrace(actx, &httptrace.ClientTrace{
		WroteRequest: func(i httptrace.WroteRequestInfo) {
			sent.Store(i.Err == nil)
			if f, ok := ctx.Value(wroteKey{}).(func(time.Time)); ok && i.Err == nil {
				f(c.cfg.Clock.Now())
			}
		},
	})
	fail := func(status int, err error) *Error {
		return &Error{Op: cl.op, Method: cl.method, Path: cl.path, StatusCode: status, Err: err}
	}
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(actx, cl.method, c.cfg.BaseURL+cl.path, body)
	if err != nil {
		return attemptResult{err: fail(0, err)}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.cfg.UserAgent)
	if cl.apiKey != "" {
		req.Header.Set("x-apikey", cl.apiKey)
	}
	start := time.Now()
	resp, err := c.cfg.HTTPClient.Do(req)
	if err != nil {
		c.logAttempt(cl, n, 0, "", time.Since(start), err)
		e := fail(0, err)
		e.sent = sent.Load()
		return attemptResult{err: e, sent: e.sent}
	}
	defer func() { _ = resp.Body.Close() }()
	res := attemptResult{status: resp.StatusCode, sent: true}
	env, derr := decodeEnvelope(io.LimitReader(resp.Body, maxAnswer))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswer))
	c.logAttempt(cl, n, resp.StatusCode, env.Status, time.Since(start), nil)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := fail(resp.StatusCode, nil)
		e.Status, e.Message = env.Status, env.message()
		if e.Message == "" {
			e.Message = http.StatusText(resp.StatusCode)
		}
		res.err = e
		res.retryAfter = retryAfter(resp.Header.Get("Retry-After"), c.cfg.Clock.Now())
		return res
	}
	if derr != nil {
		e := fail(resp.StatusCode, nil)
		e.Message = "answer is not the expected envelope: " + derr.Error()
		res.err = e
		return res
	}
	res.env = env
	return res
}

// wroteKey carries, in a read's context, the function told when the
// request has been written (the Poller's: it spaces reads by their writes).
type wroteKey struct{}

// logAttempt writes one line per attempt. Paths carry ids but never a
// query, an API key or a body.
func (c *Client) logAttempt(cl call, attempt, status int, envStatus string, d time.Duration, err error) {
	attrs := []any{"op", cl.op, "method", cl.method, "path", cl.path, "attempt", attempt, "status", status, "duration", d}
	if envStatus != "" {
		attrs = append(attrs, "cloud_status", envStatus)
	}
	if err != nil {
		c.log.Warn("terminal cloud call failed", append(attrs, "err", err)...)
		return
	}
	c.log.Info("terminal cloud call", attrs...)
}

// backoff is the wait before attempt n+1: base·2^(n-1), capped, with half
// of it random ("equal jitter") so clients that failed together spread out.
func backoff(n int, base, ceiling time.Duration) time.Duration {
	d := base
	for i := 1; i < n && d < ceiling; i++ {
		d *= 2
	}
	d = min(d, ceiling)
	half := d / 2
	return half + time.Duration(rand.Int64N(int64(half)+1))
}

// retryAfter reads a Retry-After header: seconds or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
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
