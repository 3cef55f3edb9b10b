package apikeys

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
)

// Key is one API key as the admin pages list it. The secret is not here: only its hash
// is kept, and it is never read back.
type Key struct {
	ID     uuid.UUID
	Name   string
	Prefix string
	Scope  Scope
	Access Access
	// RepName names the rep of a rep-scoped key; RepActive says whether the rep may
	// still sign in (a key of a deactivated rep does not work).
	RepName   string
	RepActive bool
	CreatedBy uuid.UUID
	// CreatedByName names the admin who created the key.
	CreatedByName string
	CreatedAt     time.Time
	LastUsedAt    *time.Time
	RevokedAt     *time.Time
	RevokedBy     *uuid.UUID
}

// Revoked reports whether the key was revoked.
func (k *Key) Revoked() bool { return k.RevokedAt != nil }

// Works reports whether the key authenticates requests now.
func (k *Key) Works() bool { return !k.Revoked() && (k.Scope.Kind != ScopeRep || k.RepActive) }

// Store reads and writes the api_keys table.
type Store struct{ database.Tables }

// NewStore returns a store on pool.
func NewStore(pool *pgxpool.Pool) *Store { return &Store{database.Tables{Pool: pool}} }

// keyColumns are the columns scanKey reads, from api_keys k, its rep r and its creator c.
const keyColumns = `k.id, k.name, k.prefix, k.scope, COALESCE(k.rep_user_id, '00000000-0000-0000-0000-000000000000'::uuid),
	k.access, COALESCE(NULLIF(r.name, ''), r.email, ''), COALESCE(r.active, false),
	k.created_by, COALESCE(NULLIF(c.name, ''), c.email, ''), k.created_at, k.last_used_at, k.revoked_at, k.revoked_by`

const keyFrom = ` FROM api_keys k LEFT JOIN users r ON r.id = k.rep_user_id JOIN users c ON c.id = k.created_by`

func scanKey(row pgx.CollectableRow) (Key, error) {
	var k Key
	var scope, access string
	err := row.Scan(&k.ID, &k.Name, &k.Prefix, &scope, &k.Scope.RepID, &access, &k.RepName, &k.RepActive,
		&k.CreatedBy, &k.CreatedByName, &k.CreatedAt, &k.LastUsedAt, &k.RevokedAt, &k.RevokedBy)
	k.Scope.Kind, k.Access = ScopeKind(scope), Access(access)
	return k, err
}

// insert stores a new key with the hash of its secret.
func (s *Store) insert(ctx context.Context, q database.Querier, k *Key, hash []byte) error {
	var rep *uuid.UUID
	if k.Scope.Kind == ScopeRep {
		rep = &k.Scope.RepID
	}
	_, err := s.On(q).Exec(ctx, `INSERT INTO api_keys (id, name, prefix, secret_sha256, scope, rep_user_id, access, created_by, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		k.ID, k.Name, k.Prefix, hash, string(k.Scope.Kind), rep, string(k.Access), k.CreatedBy, k.CreatedAt)
	if err != nil {
		return fmt.Errorf("insert API key: %w", err)
	}
	return nil
}

// List returns every key, newest first.
func (s *Store) List(ctx context.Context) ([]Key, error) {
	rows, err := s.Pool.Query(ctx, `SELECT `+keyColumns+keyFrom+` ORDER BY k.revoked_at IS NOT NULL, k.created_at DESC, k.id`)
	if err != nil {
		return nil, fmt.Errorf("list API keys: %w", err)
	}
	keys, err := pgx.CollectRows(rows, scanKey)
	if err != nil {
		return nil, fmt.Errorf("list API keys: %w", err)
	}
	return keys, nil
}

// Get loads one key, or models.ErrNotFound.
func (s *Store) Get(ctx context.Context, q database.Querier, id uuid.UUID) (*Key, error) {
	rows, err := s.On(q).Query(ctx, `SELECT `+keyColumns+keyFrom+` WHERE k.id = $1`, id)
	if err != nil {
		return nil, fmt.Errorf("load API key: %w", err)
	}
	k, err := pgx.CollectExactlyOneRow(rows, scanKey)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, models.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("load API key: %w", err)
	}
	return &k, nil
}

// ByHash loads the key whose secret hashes to hash, the user it acts as (rep-scoped
// keys; nil otherwise) and the stored hash, or models.ErrNotFound. The lookup is by the
// hash, never by the secret: its timing tells nothing of the secret.
func (s *Store) ByHash(ctx context.Context, hash []byte) (*Key, *models.User, []byte, error) {
	var stored []byte
	var rep models.User
	var repRole string
	rows, err := s.Pool.Query(ctx, `SELECT `+keyColumns+`, k.secret_sha256, COALESCE(r.email, ''), COALESCE(r.role, ''),
		COALESCE(r.time_zone, '')`+keyFrom+` WHERE k.secret_sha256 = $1`, hash)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("find API key: %w", err)
	}
	k, err := pgx.CollectExactlyOneRow(rows, func(row pgx.CollectableRow) (Key, error) {
		var k Key
		var scope, access string
		err := row.Scan(&k.ID, &k.Name, &k.Prefix, &scope, &k.Scope.RepID, &access, &k.RepName, &k.RepActive,
			&k.CreatedBy, &k.CreatedByName, &k.CreatedAt, &k.LastUsedAt, &k.RevokedAt, &k.RevokedBy,
			&stored, &rep.Email, &repRole, &rep.TimeZone)
		k.Scope.Kind, k.Access = ScopeKind(scope), Access(access)
		return k, err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil, nil, models.ErrNotFound
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("find API key: %w", err)
	}
	if k.Scope.Kind != ScopeRep {
		return &k, nil, stored, nil
	}
	rep.ID, rep.Name, rep.Role, rep.Active = k.Scope.RepID, k.RepName, models.Role(repRole), k.RepActive
	return &k, &rep, stored, nil
}

// revoke marks a key revoked unless it already is; it reports whether it changed.
func (s *Store) revoke(ctx context.Context, q database.Querier, id, by uuid.UUID, at time.Time) (bool, error) {
	tag, err := s.On(q).Exec(ctx, `UPDATE api_keys SET revoked_at = $2, revoked_by = $3 WHERE id = $1 AND revoked_at IS NULL`, id, at, by)
	if err != nil {
		return false, fmt.Errorf("revoke API key: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// lastUseGranularity is how stale last_used_at may be: recording every request's time
// would write a row per request.
const lastUseGranularity = time.Minute

// touch records that a key was used at, at most once per lastUseGranularity.
func (s *Store) touch(ctx context.Context, id uuid.UUID, at time.Time) error {
	_, err := s.Pool.Exec(ctx, `UPDATE api_keys SET last_used_at = $2
		WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $3)`, id, at, at.Add(-lastUseGranularity))
	if err != nil {
		return fmt.Errorf("record API key use: %w", err)
	}
	return nil
}

// Rep is a sales rep a key may act as.
type Rep struct {
	ID   uuid.UUID
	Name string
}

// reps lists the active sales reps, by name.
func (s *Store) reps(ctx context.Context) ([]Rep, error) {
	rows, err := s.Pool.Query(ctx, `SELECT id, COALESCE(NULLIF(name, ''), email) FROM users
		WHERE role = 'sales_rep' AND active ORDER BY lower(COALESCE(NULLIF(name, ''), email)), id`)
	if err != nil {
		return nil, fmt.Errorf("list sales reps: %w", err)
	}
	reps, err := pgx.CollectRows(rows, pgx.RowToStructByPos[Rep])
	if err != nil {
		return nil, fmt.Errorf("list sales reps: %w", err)
	}
	return reps, nil
}
