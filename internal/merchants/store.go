package merchants

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/states"
)

// Store reads and writes the merchants' tables in pgx. Every method takes a
// database.Querier: the pool (nil) or the pgx.Tx of a use case, which then
// also carries the audit entry, River's insert and the outbox's message.
type Store struct{ database.Tables }

// NewStore returns a store on pool.
func NewStore(pool *pgxpool.Pool) *Store { return &Store{database.Tables{Pool: pool}} }

// merchantSelect reads a merchant with its application's owner and state, in
// the order of the fields of Merchant.
const merchantSelect = `SELECT ` + merchantColumns + ` FROM ` + merchantFrom

// merchantColumns and merchantFrom are merchantSelect's parts, for queries
// that read more beside the merchant.
const (
	merchantColumns = `m.id, m.application_id, m.name, m.legal_name, m.boarded_at, m.created_at, m.updated_at,
	m.suspended_at, m.suspended_by, m.suspend_reason, m.alert_status, m.alert_at, m.alert_resolved_at,
	m.alert_resolved_by, m.alert_resolution, m.sandbox_fetch, m.sandbox_fetch_error,
	a.owner_id, COALESCE(NULLIF(u.name, ''), u.email), a.upstream_application_id, a.upstream_status`
	merchantFrom = `merchants m JOIN applications a ON a.id = m.application_id JOIN users u ON u.id = a.owner_id`
)

func collectMerchants(rows pgx.Rows, err error) ([]Merchant, error) {
	if err != nil {
		return nil, fmt.Errorf("load merchants: %w", err)
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[Merchant])
	if err != nil {
		return nil, fmt.Errorf("load merchants: %w", err)
	}
	return list, nil
}

func oneMerchant(rows pgx.Rows, err error) (*Merchant, error) {
	list, err := collectMerchants(rows, err)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, models.ErrNotFound
	}
	return &list[0], nil
}

// Get loads a merchant whoever asks; use Service.Visible for a person.
func (s *Store) Get(ctx context.Context, q database.Querier, id uuid.UUID) (*Merchant, error) {
	return oneMerchant(s.On(q).Query(ctx, merchantSelect+` WHERE m.id = $1`, id))
}

// lock loads a merchant and locks its row until the transaction ends.
func (s *Store) lock(ctx context.Context, tx pgx.Tx, id uuid.UUID) (*Merchant, error) {
	return oneMerchant(tx.Query(ctx, merchantSelect+` WHERE m.id = $1 FOR UPDATE OF m`, id))
}

// byApplication loads, and locks, the merchant of an application.
func (s *Store) byApplication(ctx context.Context, tx pgx.Tx, appID uuid.UUID) (*Merchant, error) {
	return oneMerchant(tx.Query(ctx, merchantSelect+` WHERE m.application_id = $1 FOR UPDATE OF m`, appID))
}

// IDOfApplication returns the id of an application's merchant, if it has one.
func (s *Store) IDOfApplication(ctx context.Context, appID uuid.UUID) (uuid.UUID, bool, error) {
	var id uuid.UUID
	err := s.Pool.QueryRow(ctx, `SELECT id FROM merchants WHERE application_id = $1`, appID).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return uuid.Nil, false, nil
	}
	if err != nil {
		return uuid.Nil, false, fmt.Errorf("merchant of application: %w", err)
	}
	return id, true, nil
}

// listFilter narrows the list: an owner (reps), a member (merchant users).
type listFilter struct {
	OwnerID  *uuid.UUID
	MemberID *uuid.UUID
}

// list returns merchants by name.
func (s *Store) list(ctx context.Context, f listFilter) ([]Merchant, error) {
	where, args := ` WHERE true`, []any{}
	if f.OwnerID != nil {
		args = append(args, *f.OwnerID)
		where += fmt.Sprintf(` AND a.owner_id = $%d`, len(args))
	}
	if f.MemberID != nil {
		args = append(args, *f.MemberID)
		where += fmt.Sprintf(` AND EXISTS (SELECT 1 FROM merchant_memberships mm WHERE mm.merchant_id = m.id AND mm.user_id = $%d)`, len(args))
	}
	return collectMerchants(s.On(nil).Query(ctx, merchantSelect+where+` ORDER BY lower(m.name), m.id`, args...))
}

// create makes the merchant of a boarded application, once: it reports
// whether this call created it. A repeat keeps the earliest boarding time.
func (s *Store) create(ctx context.Context, tx pgx.Tx, appID uuid.UUID, boardedAt, now time.Time) (uuid.UUID, bool, error) {
	var id uuid.UUID
	var inserted bool
	err := tx.QueryRow(ctx, `INSERT INTO merchants (id, application_id, name, legal_name, boarded_at, created_at, updated_at)
		SELECT $1, a.id, COALESCE(NULLIF(a.dba, ''), NULLIF(a.legal_name, ''), 'Unnamed merchant'), a.legal_name, $3, $4, $4
		FROM applications a WHERE a.id = $2
		ON CONFLICT (application_id) DO UPDATE SET boarded_at = LEAST(merchants.boarded_at, EXCLUDED.boarded_at)
		RETURNING id, (xmax = 0)`, uuid.New(), appID, boardedAt, now).Scan(&id, &inserted)
	if err != nil {
		return uuid.Nil, false, fmt.Errorf("create merchant: %w", err)
	}
	return id, inserted, nil
}

// setSuspended suspends (by, reason) or resumes (by nil) a merchant.
func (s *Store) setSuspended(ctx context.Context, tx pgx.Tx, id uuid.UUID, by *uuid.UUID, reason string, now time.Time) error {
	var at *time.Time
	if by != nil {
		at = &now
	}
	_, err := tx.Exec(ctx, `UPDATE merchants SET suspended_at = $2, suspended_by = $3, suspend_reason = $4, updated_at = $5 WHERE id = $1`,
		id, at, by, reason, now)
	return wrap("suspend merchant", err)
}

// setAlert raises an alert (a new, unresolved one).
func (s *Store) setAlert(ctx context.Context, tx pgx.Tx, id uuid.UUID, status string, at, now time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE merchants SET alert_status = $2, alert_at = $3, alert_resolved_at = NULL,
		alert_resolved_by = NULL, alert_resolution = '', updated_at = $4 WHERE id = $1`, id, status, at, now)
	return wrap("raise merchant alert", err)
}

// resolveAlert records an admin's decision about the alert.
func (s *Store) resolveAlert(ctx context.Context, tx pgx.Tx, id uuid.UUID, by uuid.UUID, resolution string, now time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE merchants SET alert_resolved_at = $3, alert_resolved_by = $2, alert_resolution = $4, updated_at = $3
		WHERE id = $1`, id, by, now, resolution)
	return wrap("resolve merchant alert", err)
}

// setSandboxFetch records where the sandbox's hand-over stands.
func (s *Store) setSandboxFetch(ctx context.Context, q database.Querier, id uuid.UUID, state, message string, now time.Time) error {
	_, err := s.On(q).Exec(ctx, `UPDATE merchants SET sandbox_fetch = $2, sandbox_fetch_error = $3, updated_at = $4 WHERE id = $1`,
		id, state, message, now)
	return wrap("record sandbox hand-over", err)
}

// laterDecision returns the newest declined or withdrawn event of an
// application that happened after since, if any.
func (s *Store) laterDecision(ctx context.Context, tx pgx.Tx, appID uuid.UUID, since time.Time) (string, time.Time, bool, error) {
	var status string
	var at time.Time
	err := tx.QueryRow(ctx, `SELECT status, created_upstream FROM upstream_status_events
		WHERE application_id = $1 AND status IN ('declined', 'withdrawn') AND created_upstream > $2
		ORDER BY created_upstream DESC LIMIT 1`, appID, since).Scan(&status, &at)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", time.Time{}, false, nil
	}
	if err != nil {
		return "", time.Time{}, false, fmt.Errorf("later decisions: %w", err)
	}
	return status, at, true, nil
}

// StatusEvent is one state the upstream reported for the merchant's
// application.
type StatusEvent struct {
	Status   string
	Created  time.Time
	Received time.Time
}

// State words the event from the one state table.
func (e StatusEvent) State() states.State { return states.Upstream(e.Status) }

// statusEvents lists the upstream's events of an application, newest first.
func (s *Store) statusEvents(ctx context.Context, appID uuid.UUID) ([]StatusEvent, error) {
	rows, err := s.Pool.Query(ctx, `SELECT status, created_upstream, received_at FROM upstream_status_events
		WHERE application_id = $1 ORDER BY created_upstream DESC, id DESC LIMIT 50`, appID)
	if err != nil {
		return nil, fmt.Errorf("load status events: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowToStructByPos[StatusEvent])
}

func wrap(what string, err error) error {
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}
