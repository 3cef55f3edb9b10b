package webhooks

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/payportal/portal/internal/jobs"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/states"
)

// News is one change partners may hear about.
type News struct {
	Type EventType
	// Data is the object; Emit sets its Version (and an application's state).
	Data Data
	// ApplicationID or MerchantID says whose object it is: the application's owning rep
	// decides which rep-scoped keys' endpoints hear of it (a merchant's, its
	// application's rep). One of them is set.
	ApplicationID uuid.UUID
	MerchantID    uuid.UUID
	// Once sends the event at most once per object (application.boarded, whichever of
	// boarded, installed and active shows first).
	Once bool
}

// Emitter writes events into the outbox, in the transaction of the change they
// announce: the event, a delivery per endpoint that subscribed to it within its key's
// scope, and a River job per delivery. Nothing is written when no endpoint listens.
type Emitter struct {
	queue *jobs.Queue
	now   func() time.Time
}

// NewEmitter returns the emitter; its jobs go to queue.
func NewEmitter(queue *jobs.Queue, now func() time.Time) *Emitter {
	if now == nil {
		now = time.Now
	}
	return &Emitter{queue: queue, now: now}
}

// audience finds the endpoints that hear of n, and when there are any bumps the object's
// version, in one statement; it also reads the owning application's state.
const audience = `WITH owner AS (
	SELECT a.owner_id, a.status, COALESCE(a.upstream_status, '') AS upstream_status FROM applications a
	WHERE a.id = COALESCE($3::uuid, (SELECT m.application_id FROM merchants m WHERE m.id = $4::uuid))
), targets AS (
	SELECT e.id FROM webhook_endpoints e
	JOIN api_keys k ON k.id = e.api_key_id
	LEFT JOIN users r ON r.id = k.rep_user_id
	CROSS JOIN owner o
	WHERE e.disabled_at IS NULL AND $1 = ANY (e.events) AND k.revoked_at IS NULL
	  AND (k.scope = 'reseller' OR (k.rep_user_id = o.owner_id AND r.active AND r.role = 'sales_rep'))
	  AND NOT ($6 AND EXISTS (SELECT 1 FROM webhook_events w WHERE w.object_id = $5 AND w.type = $1))
), version AS (
	INSERT INTO webhook_object_versions AS v (object_kind, object_id, version)
	SELECT $2, $5, 1 WHERE EXISTS (SELECT 1 FROM targets)
	ON CONFLICT (object_kind, object_id) DO UPDATE SET version = v.version + 1
	RETURNING version
)
SELECT (SELECT version FROM version), o.status, o.upstream_status, ARRAY(SELECT id FROM targets) FROM owner o`

// Emit writes n into the outbox inside tx. Call it in the transaction of the change,
// after the change, so the event commits with it or not at all.
func (e *Emitter) Emit(ctx context.Context, tx pgx.Tx, n News) error {
	var version *int64
	var status, upstream string
	var endpoints []uuid.UUID
	err := tx.QueryRow(ctx, audience, string(n.Type), string(n.Data.Object), nullable(n.ApplicationID), nullable(n.MerchantID),
		n.Data.ID, n.Once).Scan(&version, &status, &upstream, &endpoints)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && (version == nil || len(endpoints) == 0)) {
		return nil // no such owner, or nobody listens
	}
	if err != nil {
		return fmt.Errorf("webhooks: find the audience of %s: %w", n.Type, err)
	}
	n.Data.Version = *version
	if n.Data.Object == ObjectApplication {
		var shown *string
		if upstream != "" {
			shown = &upstream
		}
		st := states.Of(models.ApplicationStatus(status), shown)
		n.Data.State, n.Data.Status, n.Data.ProcessorStatus = st.Outcome, status, upstream
	}
	return e.write(ctx, tx, n, endpoints)
}

// write stores the event and its deliveries, and enqueues a job per delivery.
func (e *Emitter) write(ctx context.Context, tx pgx.Tx, n News, endpoints []uuid.UUID) error {
	id, now := uuid.New(), e.now().UTC()
	raw, err := body(id, n.Type, now, n.Data)
	if err != nil {
		return fmt.Errorf("webhooks: write %s: %w", n.Type, err)
	}
	deliveries := make([]uuid.UUID, len(endpoints))
	params := make([]river.InsertManyParams, len(endpoints))
	for i := range endpoints {
		deliveries[i] = uuid.New()
		params[i] = river.InsertManyParams{Args: DeliverArgs{DeliveryID: deliveries[i]}, InsertOpts: deliverOpts()}
	}
	_, err = tx.Exec(ctx, `WITH ev AS (
			INSERT INTO webhook_events (id, type, object_kind, object_id, object_version, body, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7))
		INSERT INTO webhook_deliveries (id, event_id, endpoint_id, status, created_at)
		SELECT d.id, $1, d.endpoint_id, 'pending', $7 FROM unnest($8::uuid[], $9::uuid[]) AS d(id, endpoint_id)`,
		id, string(n.Type), string(n.Data.Object), n.Data.ID, n.Data.Version, string(raw), now, deliveries, endpoints)
	if err != nil {
		return fmt.Errorf("webhooks: store %s: %w", n.Type, err)
	}
	if _, err := e.queue.Client().InsertManyTx(ctx, tx, params); err != nil {
		return fmt.Errorf("webhooks: enqueue %s: %w", n.Type, err)
	}
	return nil
}

// nullable is id, or NULL for the zero id.
func nullable(id uuid.UUID) *uuid.UUID {
	if id == uuid.Nil {
		return nil
	}
	return &id
}
