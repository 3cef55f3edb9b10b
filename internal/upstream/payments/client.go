// Package payments is the typed client of the upstream direct payment API
// (area B of the specification): card and ACH payments, voids, refunds,
// tokens, adjustments, captures and reading a transaction back. It also
// holds the card-data types, which print masked whatever happens to them.
// It knows nothing of the portal's domain.
//
// A write whose answer is lost (a timeout, a dropped connection, a 5xx) is
// an unknown outcome, never a failure: the client reads the transaction
// back by its externalTransactionId and repeats a write only with the same
// externalTransactionId and idempotency key, so one payment is never sent
// as two different requests.
package payments

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"
)

// Client calls the direct payment API. It is safe for concurrent use.
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

// Get reads a transaction back by its externalTransactionId. It answers
// ErrNotFound (errors.Is) when the upstream has no such transaction.
func (c *Client) Get(ctx context.Context, acct Account, externalTransactionID string) (*Transaction, error) {
	if err := acct.check(); err != nil {
		return nil, err
	}
	if externalTransactionID == "" {
		return nil, &ValidationError{Field: "externalTransactionId", Message: "is required"}
	}
	return c.readBack(ctx, acct, "get", externalTransactionID)
}

// check refuses an account without credentials before any request.
func (a Account) check() error {
	if a.OID == "" || a.Token == "" {
		return errors.New("payments: the account needs its oid and token")
	}
	return nil
}

// write sends one write and resolves an unknown outcome by read-back. It
// resends the very same payload (same externalTransactionId, same
// idempotency key) only after a read-back found nothing.
func (c *Client) write(ctx context.Context, acct Account, op, sub string, ref Ref, body wireBody, invalid *ValidationError) (*Transaction, error) {
	if invalid != nil {
		return nil, invalid
	}
	if err := acct.check(); err != nil {
		return nil, err
	}
	payload, err := marshalBody(body)
	if err != nil {
		return nil, fmt.Errorf("payments %s: encode body: %w", op, err)
	}
	defer clear(payload) // the body held card digits: wipe them once sent
	key := or(ref.IdempotencyKey, ref.ExternalTransactionID)
	path := "/orgs/" + url.PathEscape(acct.OID) + "/" + sub
	mayHaveActed := false // an attempt was sent and its answer lost
	unknown := func(last error) error {
		return &UnknownOutcomeError{Op: op, ExternalTransactionID: ref.ExternalTransactionID, Last: last}
	}
	for send := 1; ; send++ {
		res := c.attempt(ctx, attemptSpec{op: op, method: http.MethodPut, path: path, payload: payload,
			token: acct.Token, key: key, n: send})
		if res.err == nil {
			return res.txn, nil
		}
		if res.sent && res.verdict() != refused && res.status != http.StatusTooManyRequests {
			mayHaveActed = true
		}
		if ctx.Err() != nil {
			if mayHaveActed {
				return nil, unknown(ctx.Err())
			}
			return nil, fmt.Errorf("payments %s: %w", op, ctx.Err())
		}
		switch res.verdict() {
		case notDone:
			if send >= c.cfg.MaxAttempts {
				return nil, res.err
			}
		case maybeDone:
			t, err := c.readBack(ctx, acct, op, ref.ExternalTransactionID)
			if err == nil {
				return t, nil
			}
			if !errors.Is(err, ErrNotFound) {
				return nil, unknown(err)
			}
			if send >= c.cfg.MaxAttempts {
				return nil, unknown(res.err)
			}
		default:
			if mayHaveActed {
				// An earlier attempt's fate is unknown and this one was
				// refused (e.g. 422): still say unknown, never failed.
				return nil, unknown(res.err)
			}
			return nil, res.err
		}
		if err := c.wait(ctx, op, path, send, res); err != nil {
			if mayHaveActed {
				return nil, unknown(err)
			}
			return nil, fmt.Errorf("payments %s: %w", op, err)
		}
	}
}

// readBack reads a transaction by externalTransactionId, repeating after
// no answer, 429 (honouring Retry-After) and 5xx.
func (c *Client) readBack(ctx context.Context, acct Account, op, externalID string) (*Transaction, error) {
	path := "/orgs/" + url.PathEscape(acct.OID) + "/transactions/" + url.PathEscape(externalID)
	for n := 1; ; n++ {
		res := c.attempt(ctx, attemptSpec{op: op + " read-back", method: http.MethodGet, path: path,
			token: acct.Token, n: n})
		if res.err == nil {
			return res.txn, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("payments %s read-back: %w", op, ctx.Err())
		}
		if res.verdict() == refused || n >= c.cfg.MaxAttempts {
			return nil, res.err
		}
		if err := c.wait(ctx, op+" read-back", path, n, res); err != nil {
			return nil, fmt.Errorf("payments %s read-back: %w", op, err)
		}
	}
}

// wait sleeps before the next attempt: Retry-After when the upstream asked
// for it (capped), else exponential backoff with jitter.
func (c *Client) wait(ctx context.Context, op, path string, n int, res attemptResult) error {
	d := backoff(n, c.cfg.RetryBaseDelay, c.cfg.RetryMaxDelay)
	if res.retryAfter > 0 {
		d = min(res.retryAfter, c.cfg.MaxRetryAfter)
	}
	c.log.Info("payments call will be repeated", "op", op, "path", path, "attempt", n, "status", res.status, "wait", d)
	return c.cfg.Sleep(ctx, d)
}

// logAttempt writes one line per attempt: never a token, body or card.
func (c *Client) logAttempt(s attemptSpec, status int, d time.Duration, err error) {
	attrs := []any{"op", s.op, "method", s.method, "path", s.path, "attempt", s.n, "status", status, "duration", d}
	if err != nil {
		c.log.Warn("payments call failed", append(attrs, "err", err)...)
		return
	}
	c.log.Info("payments call", attrs...)
}
