package partnerapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payportal/portal/internal/fieldcrypt"
)

// Guard keeps what the API's conventions need across replicas, in Postgres: the
// requests of each key per minute (rate limits) and the idempotency keys of POST
// requests with their answers (sealed with the key ring).
type Guard struct {
	pool *pgxpool.Pool
	ring *fieldcrypt.KeyRing
	now  func() time.Time
	// perMinute is the requests a key may make a minute.
	perMinute int
}

// NewGuard returns the guard; limit is the requests a key may make a minute.
func NewGuard(pool *pgxpool.Pool, ring *fieldcrypt.KeyRing, limit int, now func() time.Time) *Guard {
	if now == nil {
		now = time.Now
	}
	return &Guard{pool: pool, ring: ring, now: now, perMinute: limit}
}

// rateWindow is the length of a rate-limit window.
const rateWindow = time.Minute

// count records one request of key and returns the requests of the window so far and
// the seconds until the window ends.
func (g *Guard) count(ctx context.Context, key uuid.UUID) (int, int, error) {
	now := g.now().UTC()
	start := now.Truncate(rateWindow)
	var n int
	err := g.pool.QueryRow(ctx, `INSERT INTO api_rate_windows (key_id, window_start, requests) VALUES ($1, $2, 1)
		ON CONFLICT (key_id, window_start) DO UPDATE SET requests = api_rate_windows.requests + 1
		RETURNING requests`, key, start).Scan(&n)
	if err != nil {
		return 0, 0, fmt.Errorf("count API request: %w", err)
	}
	left := int(start.Add(rateWindow).Sub(now).Seconds() + 0.999)
	return n, max(left, 1), nil
}

// Idempotency keys.
const (
	// idempotencyTTL is how long an answer is replayed.
	idempotencyTTL = 24 * time.Hour
	// idempotencyLease is how long a request may run before a retry with its key takes
	// over (its process died): longer than any request is let run.
	idempotencyLease = 5 * time.Minute
)

// storedReply is an answer kept for replay.
type storedReply struct {
	Status  int
	Headers map[string]string
	Body    []byte
}

// claimOutcome is what claiming an idempotency key found.
type claimOutcome int

const (
	claimed  claimOutcome = iota // this request runs
	inFlight                     // the first request with the key is still running
	mismatch                     // the key was used with another request
	replay                       // the first request's answer is kept
)

// claim starts a request with an idempotency key: it runs (claimed), or it is refused
// or answered from the first request's record.
func (g *Guard) claim(ctx context.Context, key uuid.UUID, idem string, hash []byte) (claimOutcome, *storedReply, error) {
	now := g.now().UTC()
	tag, err := g.pool.Exec(ctx, `INSERT INTO api_idempotency (key_id, idempotency_key, request_sha256, state, lease_until, created_at, expires_at)
		VALUES ($1, $2, $3, 'in_flight', $4, $5, $6)
		ON CONFLICT (key_id, idempotency_key) DO UPDATE SET request_sha256 = EXCLUDED.request_sha256, state = 'in_flight',
			lease_until = EXCLUDED.lease_until, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at,
			status = NULL, headers = NULL, body = NULL
		WHERE api_idempotency.expires_at <= EXCLUDED.created_at
		   OR (api_idempotency.state = 'in_flight' AND api_idempotency.lease_until <= EXCLUDED.created_at
		       AND api_idempotency.request_sha256 = EXCLUDED.request_sha256)`,
		key, idem, hash, now.Add(idempotencyLease), now, now.Add(idempotencyTTL))
	if err != nil {
		return 0, nil, fmt.Errorf("claim idempotency key: %w", err)
	}
	if tag.RowsAffected() == 1 {
		return claimed, nil, nil
	}
	return g.existing(ctx, key, idem, hash)
}

// existing reads the record of a key someone claimed before.
func (g *Guard) existing(ctx context.Context, key uuid.UUID, idem string, hash []byte) (claimOutcome, *storedReply, error) {
	var (
		stored  []byte
		state   string
		status  *int
		headers map[string]string
		body    *string
	)
	err := g.pool.QueryRow(ctx, `SELECT request_sha256, state, status, headers, body FROM api_idempotency
		WHERE key_id = $1 AND idempotency_key = $2`, key, idem).Scan(&stored, &state, &status, &headers, &body)
	if errors.Is(err, pgx.ErrNoRows) {
		return g.claim(ctx, key, idem, hash) // it expired and was pruned meanwhile
	}
	if err != nil {
		return 0, nil, fmt.Errorf("read idempotency key: %w", err)
	}
	switch {
	case string(stored) != string(hash):
		return mismatch, nil, nil
	case state != "done" || status == nil:
		return inFlight, nil, nil
	}
	plain, err := g.ring.Decrypt(deref(body), replyAAD(key, idem))
	if err != nil {
		return 0, nil, fmt.Errorf("open stored answer: %w", err)
	}
	return replay, &storedReply{Status: *status, Headers: headers, Body: []byte(plain)}, nil
}

// finish keeps the answer of a claimed request for replay.
func (g *Guard) finish(ctx context.Context, key uuid.UUID, idem string, hash []byte, r storedReply) error {
	sealed, err := g.ring.Encrypt(string(r.Body), replyAAD(key, idem))
	if err != nil {
		return err
	}
	headers, err := json.Marshal(r.Headers)
	if err != nil {
		return err
	}
	_, err = g.pool.Exec(ctx, `UPDATE api_idempotency SET state = 'done', status = $4, headers = $5, body = $6
		WHERE key_id = $1 AND idempotency_key = $2 AND request_sha256 = $3 AND state = 'in_flight'`,
		key, idem, hash, r.Status, string(headers), sealed)
	if err != nil {
		return fmt.Errorf("keep idempotent answer: %w", err)
	}
	return nil
}

// forget drops a claimed request that failed on our side, so that a retry runs again.
func (g *Guard) forget(ctx context.Context, key uuid.UUID, idem string, hash []byte) error {
	_, err := g.pool.Exec(ctx, `DELETE FROM api_idempotency WHERE key_id = $1 AND idempotency_key = $2
		AND request_sha256 = $3 AND state = 'in_flight'`, key, idem, hash)
	if err != nil {
		return fmt.Errorf("forget idempotency key: %w", err)
	}
	return nil
}

// replyAAD binds a sealed answer to its key and idempotency key.
func replyAAD(key uuid.UUID, idem string) string {
	return "api_idempotency:" + key.String() + ":" + idem
}

// Prune deletes expired idempotency records and rate windows older than an hour, and
// says how many rows went.
func (g *Guard) Prune(ctx context.Context) (int64, error) {
	now := g.now().UTC()
	a, err := g.pool.Exec(ctx, `DELETE FROM api_idempotency WHERE expires_at <= $1`, now)
	if err != nil {
		return 0, fmt.Errorf("prune idempotency keys: %w", err)
	}
	b, err := g.pool.Exec(ctx, `DELETE FROM api_rate_windows WHERE window_start < $1`, now.Add(-time.Hour))
	if err != nil {
		return 0, fmt.Errorf("prune rate windows: %w", err)
	}
	return a.RowsAffected() + b.RowsAffected(), nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
