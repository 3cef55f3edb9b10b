package auth

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/payportal/portal/internal/models"
)

// ErrEmailTaken is returned when another user already has the e-mail address.
var ErrEmailTaken = errors.New("a user with this e-mail address already exists")

// Store reads and writes users.
type Store struct{ db *gorm.DB }

// NewStore returns a user store on db.
func NewStore(db *gorm.DB) *Store { return &Store{db: db} }

// Create inserts a user.
func (s *Store) Create(ctx context.Context, u *models.User) error {
	err := s.db.WithContext(ctx).Create(u).Error
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return ErrEmailTaken
	}
	return err
}

// userColumns are the columns of models.User, in the order scanUser reads them.
const userColumns = `id, email, name, role, password_hash, active, must_change_password, session_version,
	mfa_secret, mfa_enabled_at, mfa_last_step, time_zone, created_at, updated_at, deactivated_at`

// ByID loads a user by id. Every page request calls it (LoadUser), so it reads the row
// with plain SQL rather than GORM's reflective scanning, which cost a tenth of a
// dashboard request's CPU; TestByIDLoadsEveryColumn keeps userColumns complete.
func (s *Store) ByID(ctx context.Context, id uuid.UUID) (*models.User, error) {
	var u models.User
	// Statement.ConnPool is the transaction when the store was made on one.
	row := s.db.WithContext(ctx).Statement.ConnPool.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1`, id)
	err := row.Scan(&u.ID, &u.Email, &u.Name, &u.Role, &u.PasswordHash, &u.Active, &u.MustChangePassword, &u.SessionVersion,
		&u.MFASecret, &u.MFAEnabledAt, &u.MFALastStep, &u.TimeZone, &u.CreatedAt, &u.UpdatedAt, &u.DeactivatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return &u, models.ErrNotFound
	}
	return &u, notFound(err)
}

// ByEmail loads a user by e-mail address, ignoring case.
func (s *Store) ByEmail(ctx context.Context, email string) (*models.User, error) {
	var u models.User
	err := s.db.WithContext(ctx).Where("lower(email) = ?", strings.ToLower(strings.TrimSpace(email))).Take(&u).Error
	return &u, notFound(err)
}

// List returns every user, admins first, then by e-mail.
func (s *Store) List(ctx context.Context) ([]models.User, error) {
	var users []models.User
	err := s.db.WithContext(ctx).Order("role, lower(email)").Find(&users).Error
	return users, err
}

// ListActive returns active sales reps and admins that can own applications.
func (s *Store) ListActive(ctx context.Context) ([]models.User, error) {
	var users []models.User
	err := s.db.WithContext(ctx).Where("active AND role IN ?", []models.Role{models.RoleAdmin, models.RoleSalesRep}).Order("lower(email)").Find(&users).Error
	return users, err
}

// ActiveAdmins lists the active admins, by e-mail.
func (s *Store) ActiveAdmins(ctx context.Context) ([]models.User, error) {
	var users []models.User
	err := s.db.WithContext(ctx).Where("active AND role = ?", models.RoleAdmin).Order("lower(email)").Find(&users).Error
	return users, err
}

// EndSessions signs the user out everywhere: every session of theirs stops
// working at its next request.
func (s *Store) EndSessions(ctx context.Context, id uuid.UUID, now time.Time) error {
	return rowsOrNotFound(s.db.WithContext(ctx).Model(&models.User{}).Where("id = ?", id).Updates(map[string]any{
		"session_version": gorm.Expr("session_version + 1"), "updated_at": now,
	}))
}

// CountAdmins counts active admins.
func (s *Store) CountAdmins(ctx context.Context) (int64, error) {
	var n int64
	err := s.db.WithContext(ctx).Model(&models.User{}).Where("role = ? AND active", models.RoleAdmin).Count(&n).Error
	return n, err
}

// SetActive activates or deactivates a user. Deactivating bumps the session
// version, so every session of that user stops working at once.
func (s *Store) SetActive(ctx context.Context, id uuid.UUID, active bool, now time.Time) error {
	updates := map[string]any{"active": active, "updated_at": now}
	if active {
		updates["deactivated_at"] = nil
	} else {
		updates["deactivated_at"] = now
		updates["session_version"] = gorm.Expr("session_version + 1")
	}
	return rowsOrNotFound(s.db.WithContext(ctx).Model(&models.User{}).Where("id = ?", id).Updates(updates))
}

// SetRole changes a user's role and ends their sessions, so that their next sign-in
// applies what the role requires.
func (s *Store) SetRole(ctx context.Context, id uuid.UUID, role models.Role, now time.Time) error {
	return rowsOrNotFound(s.db.WithContext(ctx).Model(&models.User{}).Where("id = ?", id).Updates(map[string]any{
		"role": role, "session_version": gorm.Expr("session_version + 1"), "updated_at": now,
	}))
}

// SetPassword stores a new password hash and ends the user's other sessions.
func (s *Store) SetPassword(ctx context.Context, id uuid.UUID, hash string, mustChange bool, now time.Time) error {
	return rowsOrNotFound(s.db.WithContext(ctx).Model(&models.User{}).Where("id = ?", id).Updates(map[string]any{
		"password_hash":        hash,
		"must_change_password": mustChange,
		"session_version":      gorm.Expr("session_version + 1"),
		"updated_at":           now,
	}))
}

func notFound(err error) error {
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return models.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("users: %w", err)
	}
	return nil
}

func rowsOrNotFound(res *gorm.DB) error {
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return models.ErrNotFound
	}
	return nil
}
