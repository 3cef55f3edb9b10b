package merchants

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/models"
)

// members lists a merchant's people, by name.
func (s *Store) members(ctx context.Context, q database.Querier, merchantID uuid.UUID) ([]Member, error) {
	rows, err := s.On(q).Query(ctx, `SELECT u.id, u.email, u.name, u.active, u.mfa_enabled_at IS NOT NULL, mm.permissions, mm.created_at, mm.updated_at
		FROM merchant_memberships mm JOIN users u ON u.id = mm.user_id
		WHERE mm.merchant_id = $1 ORDER BY lower(COALESCE(NULLIF(u.name, ''), u.email))`, merchantID)
	if err != nil {
		return nil, fmt.Errorf("load members: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (Member, error) {
		var m Member
		var perms []string
		err := row.Scan(&m.UserID, &m.Email, &m.Name, &m.Active, &m.MFAEnabled, &perms, &m.CreatedAt, &m.UpdatedAt)
		m.Permissions = toPermissions(perms)
		return m, err
	})
}

// membership returns a user's permissions on a merchant; models.ErrNotFound
// when they are not a member.
func (s *Store) membership(ctx context.Context, q database.Querier, merchantID, userID uuid.UUID) (Permissions, error) {
	var perms []string
	err := s.On(q).QueryRow(ctx, `SELECT permissions FROM merchant_memberships WHERE merchant_id = $1 AND user_id = $2`,
		merchantID, userID).Scan(&perms)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, models.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("load membership: %w", err)
	}
	return toPermissions(perms), nil
}

// addMember makes a user a member with perms; it reports whether they were
// not one already (a member keeps their permissions).
func (s *Store) addMember(ctx context.Context, tx pgx.Tx, merchantID, userID uuid.UUID, perms Permissions, by uuid.UUID, now time.Time) (bool, error) {
	tag, err := tx.Exec(ctx, `INSERT INTO merchant_memberships (merchant_id, user_id, permissions, created_by, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $5) ON CONFLICT (merchant_id, user_id) DO NOTHING`,
		merchantID, userID, perms.strings(), by, now)
	if err != nil {
		return false, fmt.Errorf("add member: %w", err)
	}
	return tag.RowsAffected() > 0, nil
}

// setPermissions replaces a member's permissions.
func (s *Store) setPermissions(ctx context.Context, tx pgx.Tx, merchantID, userID uuid.UUID, perms Permissions, now time.Time) error {
	tag, err := tx.Exec(ctx, `UPDATE merchant_memberships SET permissions = $3, updated_at = $4 WHERE merchant_id = $1 AND user_id = $2`,
		merchantID, userID, perms.strings(), now)
	if err != nil {
		return fmt.Errorf("change permissions: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return models.ErrNotFound
	}
	return nil
}

// removeMember ends a membership.
func (s *Store) removeMember(ctx context.Context, tx pgx.Tx, merchantID, userID uuid.UUID) error {
	tag, err := tx.Exec(ctx, `DELETE FROM merchant_memberships WHERE merchant_id = $1 AND user_id = $2`, merchantID, userID)
	if err != nil {
		return fmt.Errorf("remove member: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return models.ErrNotFound
	}
	return nil
}

// holdsMFAPermission reports whether a user holds, in any membership, a
// permission that requires two-step sign-in.
func (s *Store) holdsMFAPermission(ctx context.Context, userID uuid.UUID) (bool, error) {
	var yes bool
	err := s.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM merchant_memberships WHERE user_id = $1 AND permissions && $2)`,
		userID, mfaPermissions()).Scan(&yes)
	if err != nil {
		return false, fmt.Errorf("check permissions for two-step sign-in: %w", err)
	}
	return yes, nil
}

// alertRecipients are the owning rep and every active admin.
func (s *Store) alertRecipients(ctx context.Context, tx pgx.Tx, appID uuid.UUID) ([]models.User, error) {
	rows, err := tx.Query(ctx, `SELECT id, email, name FROM users
		WHERE active AND (role = 'admin' OR id = (SELECT owner_id FROM applications WHERE id = $1))
		ORDER BY role <> 'sales_rep', lower(email)`, appID)
	if err != nil {
		return nil, fmt.Errorf("alert recipients: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (models.User, error) {
		var u models.User
		err := row.Scan(&u.ID, &u.Email, &u.Name)
		return u, err
	})
}

func toPermissions(in []string) Permissions {
	out := make(Permissions, 0, len(in))
	for _, p := range in {
		out = append(out, Permission(p))
	}
	return out.normalized()
}
