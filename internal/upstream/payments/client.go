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
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/payportal/portal/internal/upstream/transport"
)

// Client calls the direct payment API. It is safe for concurrent use.
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
	w := &writing{c: c, acct: acct, ref: ref, spec: attemptSpec{op: op, method: http.MethodPut, payload: payload,
		path: "/orgs/" + url.PathEscape(acct.OID) + "/" + sub, token: acct.Token,
		key: cmp.Or(ref.IdempotencyKey, ref.ExternalTransactionID)}}
	for send := 1; ; send++ {
		res := c.attempt(ctx, w.spec, send)
		if res.err == nil {
			return res.txn, nil
		}
		if res.Sent && res.verdict() != refused && res.Status != http.StatusTooManyRequests {
			w.mayHaveActed = true
		}
		if ctx.Err() != nil {
			return nil, w.ended(ctx.Err())
		}
		if t, err := w.next(ctx, res, send); t != nil || err != nil {
			return t, err
		}
		if err := c.t.Pause(ctx, w.spec.request(""), res.Answer); err != nil {
			return nil, w.ended(err)
		}
	}
}

// writing is one write on its way: what it sends, and whether an attempt
// may have acted.
type writing struct {
	c            *Client
	acct         Account
	ref          Ref
	spec         attemptSpec
	mayHaveActed bool // an attempt was sent and its answer lost
}

// next decides after a failed attempt: the transaction (read back), the
// error to return, or neither, to send the same request again.
func (w *writing) next(ctx context.Context, res attemptResult, send int) (*Transaction, error) {
	last := send >= w.c.t.MaxAttempts()
	switch res.verdict() {
	case notDone:
		if last {
			return nil, res.err
		}
	case maybeDone:
		t, err := w.c.readBack(ctx, w.acct, w.spec.op, w.ref.ExternalTransactionID)
		switch {
		case err == nil:
			return t, nil
		case !errors.Is(err, ErrNotFound):
			return nil, w.unknown(err)
		case last:
			return nil, w.unknown(res.err)
		}
	default:
		if w.mayHaveActed {
			// An earlier attempt's fate is unknown and this one was refused
			// (e.g. 422): still say unknown, never failed.
			return nil, w.unknown(res.err)
		}
		return nil, res.err
	}
	return nil, nil
}

// unknown is the outcome of a write that may have acted, last the failure seen.
func (w *writing) unknown(last error) error {
	return &UnknownOutcomeError{Op: w.spec.op, ExternalTransactionID: w.ref.ExternalTransactionID, Last: last}
}

// ended is the error of a write whose context ended (err): unknown once an
// attempt may have acted.
func (w *writing) ended(err error) error {
	if w.mayHaveActed {
		return w.unknown(err)
	}
	return fmt.Errorf("payments %s: %w", w.spec.op, err)
}

// readBack reads a transaction by externalTransactionId, repeating after
// no answer, 429 (honouring Retry-After), 5xx and an unreadable answer.
func (c *Client) readBack(ctx context.Context, acct Account, op, externalID string) (*Transaction, error) {
	spec := attemptSpec{op: op + " read-back", method: http.MethodGet, token: acct.Token,
		path: "/orgs/" + url.PathEscape(acct.OID) + "/transactions/" + url.PathEscape(externalID)}
	var res attemptResult
	_, err := c.t.Do(ctx, spec.request(c.cfg.AppVersion), func(a transport.Answer) transport.Next {
		if res = read(spec, a); res.err == nil || res.verdict() == refused {
			return transport.Stop
		}
		return transport.Again
	})
	switch {
	case err != nil:
		return nil, fmt.Errorf("payments %s read-back: %w", op, err)
	case res.err != nil:
		return nil, res.err
	}
	return res.txn, nil
}
