// Package accounts is the typed client of the upstream account application
// API (area A of the specification): token exchange, application start,
// PATCH of application data, file metadata and presigned uploads, and the
// application link. It knows nothing of the portal's domain.
package accounts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
	"time"
)

// Client calls the upstream. It is safe for concurrent use.
type Client struct {
	cfg    Config
	log    *slog.Logger
	tokens *tokenSource
}

// New checks cfg and builds a Client. It makes no request: call
// Authenticate to check key-and-secret credentials at start-up.
func New(cfg Config) (*Client, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, log: cfg.Logger}
	c.tokens = &tokenSource{static: cfg.Token, now: cfg.Now, exchange: c.exchange}
	return c, nil
}

// call describes one API call.
type call struct {
	method string
	path   string // below the base URL, ids escaped
	body   any    // JSON body, or nil
	out    any    // decoded from a 2xx answer, or nil
	policy retryPolicy
	noAuth bool // POST /auth carries no bearer token
}

// maxAnswer bounds the answers the client reads.
const maxAnswer = 1 << 20

// do runs a call with its retries and returns nil, an *Error, or the
// context's error wrapped.
func (c *Client) do(ctx context.Context, cl call) error {
	var payload []byte
	if cl.body != nil {
		var err error
		if payload, err = json.Marshal(cl.body); err != nil {
			return fmt.Errorf("upstream %s %s: encode body: %w", cl.method, cl.path, err)
		}
	}
	refreshed := false
	for attempt := 1; ; attempt++ {
		token := ""
		if !cl.noAuth {
			var err error
			if token, err = c.tokens.get(ctx); err != nil {
				return err
			}
		}
		res := c.attempt(ctx, cl, payload, token, attempt)
		if res.err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("upstream %s %s: %w", cl.method, cl.path, ctx.Err())
		}
		if res.status == http.StatusUnauthorized && !cl.noAuth && c.tokens.refreshable() && !refreshed {
			// The token may have been revoked or expired early: get a new one
			// once, without spending an attempt.
			refreshed = true
			c.tokens.invalidate(token)
			attempt--
			continue
		}
		if attempt >= c.cfg.MaxAttempts || !cl.policy.allows(res) {
			return res.err
		}
		wait := backoff(attempt, c.cfg.RetryBaseDelay, c.cfg.RetryMaxDelay)
		if res.retryAfter > 0 {
			wait = min(res.retryAfter, c.cfg.MaxRetryAfter)
		}
		c.log.Info("upstream call will be retried", "method", cl.method, "path", cl.path,
			"attempt", attempt, "status", res.status, "wait", wait)
		if err := c.cfg.Sleep(ctx, wait); err != nil {
			return fmt.Errorf("upstream %s %s: %w", cl.method, cl.path, err)
		}
	}
}

// attemptResult is the outcome of one attempt.
type attemptResult struct {
	err        error
	status     int  // 0 when no answer arrived
	sent       bool // the whole request was written
	retryAfter time.Duration
}

// attempt makes one request, bounded by the attempt timeout.
func (c *Client) attempt(ctx context.Context, cl call, payload []byte, token string, n int) attemptResult {
	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	var sent atomic.Bool
	actx = httptrace.WithClientTrace(actx, &httptrace.ClientTrace{
		WroteRequest: func(i httptrace.WroteRequestInfo) { sent.Store(i.Err == nil) },
	})
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(actx, cl.method, c.cfg.BaseURL+cl.path, body)
	if err != nil {
		return attemptResult{err: &Error{Method: cl.method, Path: cl.path, Err: err}}
	}
	// The specification asks for both headers on every request.
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.cfg.UserAgent)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	start := time.Now()
	resp, err := c.cfg.HTTPClient.Do(req)
	if err != nil {
		c.logAttempt(cl.method, cl.path, n, 0, time.Since(start), err)
		return attemptResult{err: &Error{Method: cl.method, Path: cl.path, Err: err}, sent: sent.Load()}
	}
	defer resp.Body.Close()
	c.logAttempt(cl.method, cl.path, n, resp.StatusCode, time.Since(start), nil)
	res := attemptResult{status: resp.StatusCode, sent: true}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		res.err = errorFromAnswer(cl.method, cl.path, resp)
		res.retryAfter = retryAfter(resp.Header.Get("Retry-After"), c.cfg.Now())
		return res
	}
	if cl.out != nil {
		if err := json.NewDecoder(io.LimitReader(resp.Body, maxAnswer)).Decode(cl.out); err != nil {
			res.err = &Error{Method: cl.method, Path: cl.path, StatusCode: resp.StatusCode,
				Message: "answer is not the expected JSON: " + err.Error()}
		}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswer))
	return res
}

// logAttempt writes one line per attempt. Paths carry ids but never a
// query, a token or a body.
func (c *Client) logAttempt(method, path string, attempt, status int, d time.Duration, err error) {
	attrs := []any{"method", method, "path", path, "attempt", attempt, "status", status, "duration", d}
	if err != nil {
		c.log.Warn("upstream call failed", append(attrs, "err", err)...)
		return
	}
	c.log.Info("upstream call", attrs...)
}
