package webhooks

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/models"
)

// The states of a delivery.
const (
	StatusPending   = "pending"   // attempts go on
	StatusDelivered = "delivered" // the receiver answered 2xx
	StatusFailed    = "failed"    // every attempt failed, or it was stopped
)

// Delivery is one event's journey to one endpoint, as the delivery log shows it.
type Delivery struct {
	ID          uuid.UUID
	EndpointID  uuid.UUID
	EventID     uuid.UUID
	Type        EventType
	ObjectKind  ObjectKind
	ObjectID    uuid.UUID
	Version     int64
	Status      string
	Attempts    int
	LastAttempt *time.Time
	// LastCode is the receiver's status code at the last attempt (nil: no answer);
	// LastTook how long that attempt took.
	LastCode     *int
	LastTook     *time.Duration
	LastError    string
	NextAttempt  *time.Time
	DeliveredAt  *time.Time
	CreatedAt    time.Time
	EventCreated time.Time
}

// TookText says how long the last attempt's answer took, for people.
func (d *Delivery) TookText() string {
	if d.LastTook == nil {
		return ""
	}
	return tookText(*d.LastTook)
}

// TookText says how long the receiver took, for people.
func (a Attempt) TookText() string { return tookText(a.Took) }

// tookText words an answer time: "under 1 ms", "182 ms", "2.4 s".
func tookText(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return "under 1 ms"
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

// Attempt is one try of a delivery.
type Attempt struct {
	Number  int
	Started time.Time
	Took    time.Duration
	Code    *int
	Problem string
}

// DeliveryPage is one page of an endpoint's log, newest first.
type DeliveryPage struct {
	Deliveries []Delivery
	Page       int
	HasMore    bool
}

const deliveryColumns = `d.id, d.endpoint_id, d.event_id, ev.type, ev.object_kind, ev.object_id, ev.object_version, d.status,
	d.attempts, d.last_attempt_at, d.last_status_code, a.duration_ms, d.last_error, d.next_attempt_at, d.delivered_at,
	d.created_at, ev.created_at`

const deliveryFrom = ` FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
	LEFT JOIN webhook_attempts a ON a.delivery_id = d.id AND a.number = d.attempts`

func scanDelivery(row pgx.CollectableRow) (Delivery, error) {
	var d Delivery
	var tookMS *int64
	err := row.Scan(&d.ID, &d.EndpointID, &d.EventID, &d.Type, &d.ObjectKind, &d.ObjectID, &d.Version, &d.Status,
		&d.Attempts, &d.LastAttempt, &d.LastCode, &tookMS, &d.LastError, &d.NextAttempt, &d.DeliveredAt, &d.CreatedAt, &d.EventCreated)
	if tookMS != nil {
		took := time.Duration(*tookMS) * time.Millisecond
		d.LastTook = &took
	}
	return d, err
}

// Deliveries returns one page of an endpoint's log, newest first, with status "" for all.
func (s *Store) Deliveries(ctx context.Context, endpointID uuid.UUID, status string, page, perPage int) (*DeliveryPage, error) {
	page = max(page, 1)
	rows, err := s.Pool.Query(ctx, `SELECT `+deliveryColumns+deliveryFrom+`
		WHERE d.endpoint_id = $1 AND ($2 = '' OR d.status = $2)
		ORDER BY d.created_at DESC, d.id DESC LIMIT $3 OFFSET $4`, endpointID, status, perPage+1, (page-1)*perPage)
	if err != nil {
		return nil, fmt.Errorf("list webhook deliveries: %w", err)
	}
	list, err := pgx.CollectRows(rows, scanDelivery)
	if err != nil {
		return nil, fmt.Errorf("list webhook deliveries: %w", err)
	}
	p := &DeliveryPage{Deliveries: list, Page: page}
	if len(list) > perPage {
		p.Deliveries, p.HasMore = list[:perPage], true
	}
	return p, nil
}

// Delivery loads one delivery of an endpoint with its event's body and its attempts,
// newest first, or models.ErrNotFound.
func (s *Store) Delivery(ctx context.Context, endpointID, id uuid.UUID) (*Delivery, string, []Attempt, error) {
	rows, err := s.Pool.Query(ctx, `SELECT `+deliveryColumns+deliveryFrom+` WHERE d.id = $1 AND d.endpoint_id = $2`, id, endpointID)
	if err != nil {
		return nil, "", nil, fmt.Errorf("load webhook delivery: %w", err)
	}
	d, err := pgx.CollectExactlyOneRow(rows, scanDelivery)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, "", nil, models.ErrNotFound
	}
	if err != nil {
		return nil, "", nil, fmt.Errorf("load webhook delivery: %w", err)
	}
	var body string
	if err := s.Pool.QueryRow(ctx, `SELECT body FROM webhook_events WHERE id = $1`, d.EventID).Scan(&body); err != nil {
		return nil, "", nil, fmt.Errorf("load webhook event: %w", err)
	}
	rows, err = s.Pool.Query(ctx, `SELECT number, started_at, duration_ms, status_code, error FROM webhook_attempts
		WHERE delivery_id = $1 ORDER BY number DESC`, id)
	if err != nil {
		return nil, "", nil, fmt.Errorf("list webhook attempts: %w", err)
	}
	attempts, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Attempt, error) {
		var a Attempt
		var ms int64
		err := row.Scan(&a.Number, &a.Started, &ms, &a.Code, &a.Problem)
		a.Took = time.Duration(ms) * time.Millisecond
		return a, err
	})
	if err != nil {
		return nil, "", nil, fmt.Errorf("list webhook attempts: %w", err)
	}
	return &d, body, attempts, nil
}

// outgoing is what an attempt needs: the delivery, its event and its endpoint.
type outgoing struct {
	DeliveryID, EventID, EndpointID uuid.UUID
	Type                            EventType
	Status                          string
	Body                            []byte
	URL                             string
	SecretSealed, PreviousSealed    string
	PreviousUntil                   *time.Time
	Disabled, KeyRevoked, KeyWorks  bool
}

// stopped says why a pending delivery must not be attempted, or "".
func (o *outgoing) stopped() string {
	switch {
	case o.Disabled:
		return "Not sent: the endpoint is disabled."
	case o.KeyRevoked:
		return "Not sent: the endpoint's API key was revoked."
	case !o.KeyWorks:
		return "Not sent: the endpoint's API key acts as a sales rep who was deactivated."
	}
	return ""
}

// outgoingOf loads a delivery for an attempt, or models.ErrNotFound (its endpoint was
// deleted with it).
func (s *Store) outgoingOf(ctx context.Context, id uuid.UUID) (*outgoing, error) {
	var o outgoing
	var previous *string
	var body string
	err := s.Pool.QueryRow(ctx, `SELECT d.id, d.event_id, d.endpoint_id, ev.type, d.status, ev.body, e.url,
			e.secret_sealed, e.previous_secret_sealed, e.previous_until, e.disabled_at IS NOT NULL, k.revoked_at IS NOT NULL,
			k.scope = 'reseller' OR (COALESCE(r.active, false) AND r.role = 'sales_rep')
		FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id JOIN webhook_endpoints e ON e.id = d.endpoint_id
		JOIN api_keys k ON k.id = e.api_key_id LEFT JOIN users r ON r.id = k.rep_user_id
		WHERE d.id = $1`, id).Scan(&o.DeliveryID, &o.EventID, &o.EndpointID, &o.Type, &o.Status, &body, &o.URL,
		&o.SecretSealed, &previous, &o.PreviousUntil, &o.Disabled, &o.KeyRevoked, &o.KeyWorks)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, models.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("load webhook delivery: %w", err)
	}
	o.Body = []byte(body)
	if previous != nil {
		o.PreviousSealed = *previous
	}
	return &o, nil
}

// attemptRecord is what one attempt changed.
type attemptRecord struct {
	DeliveryID uuid.UUID
	At         time.Time
	Answer     Answer
	// Status is the delivery's state after the attempt; Next when it will be tried again.
	Status string
	Next   *time.Time
}

// recordAttempt writes an attempt and the delivery's new state in one statement, and
// keeps the endpoint's run of failures: started by a failure, ended by a success (the
// endpoint's row is written only then, so busy endpoints' deliveries do not queue on
// it). It returns when the endpoint's failures began (nil when it is not failing), and
// false when the delivery was no longer pending (another run recorded it).
func (s *Store) recordAttempt(ctx context.Context, r attemptRecord) (*time.Time, bool, error) {
	var code *int
	if r.Answer.Code != 0 {
		code = &r.Answer.Code
	}
	var attempts *int
	var failingSince *time.Time
	err := s.Pool.QueryRow(ctx, `WITH d AS (
			UPDATE webhook_deliveries SET attempts = attempts + 1, status = $2::text, last_attempt_at = $3::timestamptz,
				last_status_code = $4::integer, last_error = $5::text, next_attempt_at = $6::timestamptz,
				delivered_at = CASE WHEN $2::text = 'delivered' THEN $3::timestamptz END
			WHERE id = $1 AND status = 'pending' RETURNING attempts, endpoint_id),
		a AS (
			INSERT INTO webhook_attempts (delivery_id, number, started_at, duration_ms, status_code, error)
			SELECT $1, attempts, $3::timestamptz, $7::integer, $4::integer, $5::text FROM d),
		p AS (
			UPDATE webhook_endpoints e SET failing_since = CASE WHEN $8::boolean THEN NULL ELSE $3::timestamptz END
			WHERE e.id = (SELECT endpoint_id FROM d) AND (e.failing_since IS NULL) <> $8::boolean
			RETURNING e.failing_since)
		SELECT (SELECT attempts FROM d),
			CASE WHEN $8::boolean THEN NULL ELSE COALESCE((SELECT failing_since FROM p),
				(SELECT failing_since FROM webhook_endpoints WHERE id = (SELECT endpoint_id FROM d))) END`,
		r.DeliveryID, r.Status, r.At, code, r.Answer.Problem, r.Next, r.Answer.Took.Milliseconds(), r.Answer.Accepted).
		Scan(&attempts, &failingSince)
	if err != nil {
		return nil, false, fmt.Errorf("record webhook attempt: %w", err)
	}
	return failingSince, attempts != nil, nil
}

// stop marks a pending delivery failed without an attempt, saying why.
func (s *Store) stop(ctx context.Context, id uuid.UUID, why string) error {
	_, err := s.Pool.Exec(ctx, `UPDATE webhook_deliveries SET status = 'failed', last_error = $2, next_attempt_at = NULL
		WHERE id = $1 AND status = 'pending'`, id, why)
	if err != nil {
		return fmt.Errorf("stop webhook delivery: %w", err)
	}
	return nil
}

// requeue makes a finished delivery pending again, for "send again"; false when it was
// still pending, models.ErrNotFound when the endpoint has no such delivery.
func (s *Store) requeue(ctx context.Context, q pgx.Tx, endpointID, id uuid.UUID) (bool, error) {
	var again, exists bool
	err := q.QueryRow(ctx, `WITH u AS (
			UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = NULL
			WHERE id = $1 AND endpoint_id = $2 AND status <> 'pending' RETURNING id)
		SELECT EXISTS (SELECT 1 FROM u), EXISTS (SELECT 1 FROM webhook_deliveries WHERE id = $1 AND endpoint_id = $2)`,
		id, endpointID).Scan(&again, &exists)
	switch {
	case err != nil:
		return false, fmt.Errorf("send webhook delivery again: %w", err)
	case !exists:
		return false, models.ErrNotFound
	}
	return again, nil
}
