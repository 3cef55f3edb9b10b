package webhooks

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payportal/portal/internal/apikeys"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/models"
)

// Endpoint is a receiver an admin registered, as its pages show it. Its secrets are not
// here: they are read sealed only to sign, and shown only when drawn.
type Endpoint struct {
	ID          uuid.UUID
	URL         string
	Description string
	Events      []EventType
	// The API key whose scope decides whose news the endpoint hears.
	KeyID      uuid.UUID
	KeyName    string
	KeyPrefix  string
	KeyScope   apikeys.ScopeKind
	KeyRepName string
	// KeyWorks says the key is neither revoked nor acting as a deactivated rep: an
	// endpoint of a key that does not work receives nothing.
	KeyWorks bool
	// DisabledAt is set while the endpoint is disabled: by DisabledBy, or by the portal
	// (DisabledBy nil) after its deliveries failed for three days.
	DisabledAt     *time.Time
	DisabledBy     *uuid.UUID
	DisabledByName string
	// FailingSince is when the current run of failed attempts began.
	FailingSince *time.Time
	// PreviousUntil is when the secret replaced by the last rotation stops signing.
	PreviousUntil *time.Time
	CreatedBy     uuid.UUID
	CreatedByName string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// Disabled reports whether the endpoint receives nothing until an admin enables it.
func (e *Endpoint) Disabled() bool { return e.DisabledAt != nil }

// AutoDisabled reports whether the portal disabled the endpoint because it kept failing.
func (e *Endpoint) AutoDisabled() bool { return e.DisabledAt != nil && e.DisabledBy == nil }

// Subscribes reports whether the endpoint chose t.
func (e *Endpoint) Subscribes(t EventType) bool {
	for _, s := range e.Events {
		if s == t {
			return true
		}
	}
	return false
}

// Store reads and writes the endpoints, their deliveries and attempts.
type Store struct{ database.Tables }

// NewStore returns the store on pool.
func NewStore(pool *pgxpool.Pool) *Store { return &Store{database.Tables{Pool: pool}} }

const endpointColumns = `e.id, e.url, e.description, e.events, e.api_key_id, k.name, k.prefix, k.scope,
	COALESCE(NULLIF(r.name, ''), r.email, ''),
	k.revoked_at IS NULL AND (k.scope = 'reseller' OR (COALESCE(r.active, false) AND r.role = 'sales_rep')),
	e.disabled_at, e.disabled_by, COALESCE(NULLIF(d.name, ''), d.email, ''), e.failing_since, e.previous_until,
	e.created_by, COALESCE(NULLIF(c.name, ''), c.email, ''), e.created_at, e.updated_at`

const endpointFrom = ` FROM webhook_endpoints e JOIN api_keys k ON k.id = e.api_key_id
	LEFT JOIN users r ON r.id = k.rep_user_id LEFT JOIN users d ON d.id = e.disabled_by JOIN users c ON c.id = e.created_by`

func scanEndpoint(row pgx.CollectableRow) (Endpoint, error) {
	var e Endpoint
	var events []string
	var scope string
	err := row.Scan(&e.ID, &e.URL, &e.Description, &events, &e.KeyID, &e.KeyName, &e.KeyPrefix, &scope, &e.KeyRepName,
		&e.KeyWorks, &e.DisabledAt, &e.DisabledBy, &e.DisabledByName, &e.FailingSince, &e.PreviousUntil,
		&e.CreatedBy, &e.CreatedByName, &e.CreatedAt, &e.UpdatedAt)
	e.KeyScope = apikeys.ScopeKind(scope)
	for _, t := range events {
		e.Events = append(e.Events, EventType(t))
	}
	return e, err
}

// List returns every endpoint, working ones first, oldest first.
func (s *Store) List(ctx context.Context) ([]Endpoint, error) {
	rows, err := s.Pool.Query(ctx, `SELECT `+endpointColumns+endpointFrom+` ORDER BY e.disabled_at IS NOT NULL, e.created_at, e.id`)
	if err != nil {
		return nil, fmt.Errorf("list webhook endpoints: %w", err)
	}
	list, err := pgx.CollectRows(rows, scanEndpoint)
	if err != nil {
		return nil, fmt.Errorf("list webhook endpoints: %w", err)
	}
	return list, nil
}

// Get loads one endpoint (locked FOR UPDATE inside a transaction when lock), or
// models.ErrNotFound.
func (s *Store) Get(ctx context.Context, q database.Querier, id uuid.UUID, lock bool) (*Endpoint, error) {
	sql := `SELECT ` + endpointColumns + endpointFrom + ` WHERE e.id = $1`
	if lock {
		sql += ` FOR UPDATE OF e`
	}
	rows, err := s.On(q).Query(ctx, sql, id)
	if err != nil {
		return nil, fmt.Errorf("load webhook endpoint: %w", err)
	}
	e, err := pgx.CollectExactlyOneRow(rows, scanEndpoint)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, models.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("load webhook endpoint: %w", err)
	}
	return &e, nil
}

// countForKey counts the endpoints of one key.
func (s *Store) countForKey(ctx context.Context, q database.Querier, keyID uuid.UUID) (int, error) {
	var n int
	err := s.On(q).QueryRow(ctx, `SELECT count(*) FROM webhook_endpoints WHERE api_key_id = $1`, keyID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count webhook endpoints: %w", err)
	}
	return n, nil
}

// insert stores a new endpoint with its sealed secret.
func (s *Store) insert(ctx context.Context, q database.Querier, e *Endpoint, sealed string) error {
	_, err := s.On(q).Exec(ctx, `INSERT INTO webhook_endpoints (id, api_key_id, url, description, events, secret_sealed,
			created_by, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
		e.ID, e.KeyID, e.URL, e.Description, eventStrings(e.Events), sealed, e.CreatedBy, e.CreatedAt)
	if err != nil {
		return fmt.Errorf("insert webhook endpoint: %w", err)
	}
	return nil
}

// update changes an endpoint's events and description.
func (s *Store) update(ctx context.Context, q database.Querier, id uuid.UUID, events []EventType, description string, at time.Time) error {
	_, err := s.On(q).Exec(ctx, `UPDATE webhook_endpoints SET events = $2, description = $3, updated_at = $4 WHERE id = $1`,
		id, eventStrings(events), description, at)
	if err != nil {
		return fmt.Errorf("update webhook endpoint: %w", err)
	}
	return nil
}

// setDisabled disables an endpoint (by is nil when the portal does) and stops its
// pending deliveries, or enables it again with a clean record of failures.
func (s *Store) setDisabled(ctx context.Context, q database.Querier, id uuid.UUID, disabled bool, by *uuid.UUID, at time.Time) error {
	var err error
	if disabled {
		// Its pending deliveries stop now rather than at their next attempt, hours away
		// perhaps; an admin sends them again once it is enabled.
		_, err = s.On(q).Exec(ctx, `WITH e AS (
				UPDATE webhook_endpoints SET disabled_at = $2, disabled_by = $3, updated_at = $2 WHERE id = $1)
			UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, last_error = 'Not sent: the endpoint was disabled.'
			WHERE endpoint_id = $1 AND status = 'pending'`, id, at, by)
	} else {
		_, err = s.On(q).Exec(ctx, `UPDATE webhook_endpoints SET disabled_at = NULL, disabled_by = NULL, failing_since = NULL, updated_at = $2
			WHERE id = $1`, id, at)
	}
	if err != nil {
		return fmt.Errorf("disable or enable webhook endpoint: %w", err)
	}
	return nil
}

// sealedSecrets reads an endpoint's sealed secrets: the current one, and the replaced
// one with the end of its overlap (empty and nil when there is none).
func (s *Store) sealedSecrets(ctx context.Context, q database.Querier, id uuid.UUID) (string, string, *time.Time, error) {
	var current string
	var previous *string
	var until *time.Time
	err := s.On(q).QueryRow(ctx, `SELECT secret_sealed, previous_secret_sealed, previous_until FROM webhook_endpoints WHERE id = $1`, id).
		Scan(&current, &previous, &until)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", nil, models.ErrNotFound
	}
	if err != nil {
		return "", "", nil, fmt.Errorf("read webhook secrets: %w", err)
	}
	if previous == nil {
		return current, "", nil, nil
	}
	return current, *previous, until, nil
}

// rotate stores a new secret, the replaced one signing beside it until until.
func (s *Store) rotate(ctx context.Context, q database.Querier, id uuid.UUID, sealed, previous string, until, at time.Time) error {
	_, err := s.On(q).Exec(ctx, `UPDATE webhook_endpoints SET secret_sealed = $2, previous_secret_sealed = $3, previous_until = $4,
		updated_at = $5 WHERE id = $1`, id, sealed, previous, until, at)
	if err != nil {
		return fmt.Errorf("rotate webhook secret: %w", err)
	}
	return nil
}

// delete removes an endpoint with its deliveries and attempts.
func (s *Store) delete(ctx context.Context, q database.Querier, id uuid.UUID) error {
	if _, err := s.On(q).Exec(ctx, `DELETE FROM webhook_endpoints WHERE id = $1`, id); err != nil {
		return fmt.Errorf("delete webhook endpoint: %w", err)
	}
	return nil
}

func eventStrings(events []EventType) []string {
	out := make([]string, len(events))
	for i, t := range events {
		out[i] = string(t)
	}
	return out
}
