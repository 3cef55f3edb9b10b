package terminals

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/payportal/portal/internal/upstream/transport"
)

// Client calls the terminal cloud. It is safe for concurrent use; one
// Client serves every merchant and location.
type Client struct {
	cfg Config
	t   *transport.Client
}

// New checks cfg and builds a Client. It makes no request.
func New(cfg Config) (*Client, error) {
	cfg, t, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Client{cfg: cfg, t: t}, nil
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

// repeats reports whether the policy repeats a call after a.
func (p retryPolicy) repeats(a transport.Answer) bool {
	if p == retryUnreceived {
		return a.Unsent()
	}
	return a.Transient()
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

// do runs a call with its retries and returns the envelope of a 2xx answer,
// an *Error, or the context's error wrapped.
func (c *Client) do(ctx context.Context, cl call) (*envelope, error) {
	req := transport.Request{Op: cl.op, Method: cl.method, Path: cl.path, Attempts: cl.attempts}
	if cl.body != nil {
		var err error
		if req.Payload, err = json.Marshal(cl.body); err != nil {
			return nil, fmt.Errorf("terminals %s: encode body: %w", cl.op, err)
		}
	}
	if cl.apiKey != "" {
		req.Header = map[string][]string{"X-Apikey": {cl.apiKey}}
	}
	if f, ok := ctx.Value(wroteKey{}).(func(time.Time)); ok {
		req.Wrote = f
	}
	a, err := c.t.Do(ctx, req, transport.RepeatWhen(cl.policy.repeats))
	fail := func(status int, err error) *Error {
		return &Error{Op: cl.op, Method: cl.method, Path: cl.path, StatusCode: status, Err: err, sent: a.Sent}
	}
	switch {
	case err != nil && a.Status == 0:
		return nil, fail(0, err) // the context ended, or nothing could be sent
	case err != nil:
		return nil, fmt.Errorf("terminals %s %s %s: %w", cl.op, cl.method, cl.path, err)
	case a.Status == 0:
		return nil, fail(0, a.Err)
	case !a.OK():
		e, r := fail(a.Status, nil), a.Refusal()
		e.Status, e.Message = r.Status, r.Message
		return nil, e
	}
	env, derr := decodeEnvelope(a.Body)
	if derr != nil {
		e := fail(a.Status, nil)
		e.Message = "answer is not the expected envelope: " + derr.Error()
		return nil, e
	}
	return env, nil
}

// wroteKey carries, in a read's context, the function told when the
// request has been written (the Poller's: it spaces reads by their writes).
type wroteKey struct{}

// logEnvelope adds the envelope's Status to an attempt's log line.
func logEnvelope(body []byte) []any {
	var env struct {
		Status string `json:"Status"`
	}
	if json.Unmarshal(body, &env) != nil || env.Status == "" {
		return nil
	}
	return []any{"cloud_status", env.Status}
}
