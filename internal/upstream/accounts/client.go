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
	"net/http"

	"github.com/payportal/portal/internal/upstream/transport"
)

// Client calls the upstream. It is safe for concurrent use.
type Client struct {
	cfg    Config
	t      *transport.Client
	tokens *tokenSource
}

// New checks cfg and builds a Client. It makes no request: call
// Authenticate to check key-and-secret credentials at start-up.
func New(cfg Config) (*Client, error) {
	cfg, t, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, t: t}
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

// do runs a call with its retries and returns nil, an *Error, the token
// exchange's error, or the context's error wrapped.
func (c *Client) do(ctx context.Context, cl call) error {
	req := transport.Request{Method: cl.method, Path: cl.path}
	if cl.body != nil {
		var err error
		if req.Payload, err = json.Marshal(cl.body); err != nil {
			return fmt.Errorf("upstream %s %s: encode body: %w", cl.method, cl.path, err)
		}
	}
	token := "" // the token of the last attempt
	var tokenErr error
	if !cl.noAuth {
		req.Prepare = func(ctx context.Context, h http.Header) error {
			if token, tokenErr = c.tokens.get(ctx); tokenErr != nil {
				return tokenErr
			}
			h.Set("Authorization", "Bearer "+token)
			return nil
		}
	}
	refreshed, repeat := false, transport.RepeatWhen(cl.policy.repeats)
	a, err := c.t.Do(ctx, req, func(a transport.Answer) transport.Next {
		if a.Status == http.StatusUnauthorized && !cl.noAuth && c.tokens.refreshable() && !refreshed {
			// The token may have been revoked or expired early: get a new one
			// once, without spending an attempt.
			refreshed = true
			c.tokens.invalidate(token)
			return transport.AgainNow
		}
		return repeat(a)
	})
	switch {
	case tokenErr != nil: // no token: Do stopped before sending
		return tokenErr
	case err != nil:
		return fmt.Errorf("upstream %s %s: %w", cl.method, cl.path, err)
	case !a.OK():
		return answerError(cl.method, cl.path, a)
	case cl.out != nil:
		if err := json.NewDecoder(bytes.NewReader(a.Body)).Decode(cl.out); err != nil {
			return &Error{Method: cl.method, Path: cl.path, StatusCode: a.Status,
				Message: "answer is not the expected JSON: " + err.Error()}
		}
	}
	return nil
}
