package applications

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/models"
)

// userColumns are what an application's pages need to know of a user: who it is and
// whether they may still own applications.
const userColumns = `id, email, name, role, active`

func scanUser(row pgx.CollectableRow) (models.User, error) {
	var u models.User
	var role string
	err := row.Scan(&u.ID, &u.Email, &u.Name, &role, &u.Active)
	u.Role = models.Role(role)
	return u, err
}

// User loads the user who owns, or may own, an application.
func (s *Store) User(ctx context.Context, q database.Querier, id uuid.UUID) (*models.User, error) {
	rows, err := s.On(q).Query(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1`, id)
	if err != nil {
		return nil, fmt.Errorf("load user: %w", err)
	}
	u, err := pgx.CollectExactlyOneRow(rows, scanUser)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, models.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("load user: %w", err)
	}
	return &u, nil
}

// Users lists every admin and sales rep by name, for the admins' owner filter
// and reassignment (merchant users never own applications).
func (s *Store) Users(ctx context.Context, q database.Querier) ([]models.User, error) {
	rows, err := s.On(q).Query(ctx, `SELECT `+userColumns+` FROM users WHERE role IN ('admin', 'sales_rep')
		ORDER BY lower(COALESCE(NULLIF(name, ''), email))`)
	if err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	users, err := pgx.CollectRows(rows, scanUser)
	if err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	return users, nil
}
