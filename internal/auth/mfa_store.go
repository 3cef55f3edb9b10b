package auth

import (
	"context"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/payportal/portal/internal/models"
)

// SetPendingMFASecret stores a sealed TOTP secret offered for enrolment; it
// does not turn MFA on.
func (s *Store) SetPendingMFASecret(ctx context.Context, id uuid.UUID, sealed string, now time.Time) error {
	return rowsOrNotFound(s.db.WithContext(ctx).Model(&models.User{}).
		Where("id = ? AND mfa_enabled_at IS NULL", id).
		Updates(map[string]any{"mfa_secret": sealed, "updated_at": now}))
}

// EnableMFA turns MFA on (when it is not yet), records step as used and
// replaces the user's recovery codes with hashes, in one transaction.
func (s *Store) EnableMFA(ctx context.Context, id uuid.UUID, step int64, hashes []string, now time.Time) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Exec(`UPDATE users SET mfa_enabled_at = coalesce(mfa_enabled_at, ?), mfa_last_step = greatest(mfa_last_step, ?), updated_at = ?
			WHERE id = ? AND mfa_secret IS NOT NULL AND mfa_last_step < ?`, now, step, now, id, step)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return ErrWrongCode // the step was used meanwhile: a replay
		}
		if err := tx.Exec("DELETE FROM user_recovery_codes WHERE user_id = ?", id).Error; err != nil {
			return err
		}
		for _, h := range hashes {
			if err := tx.Exec("INSERT INTO user_recovery_codes (user_id, code_hash, created_at) VALUES (?, ?, ?)", id, h, now).Error; err != nil {
				return err
			}
		}
		return nil
	})
}

// AdvanceMFAStep records step as the newest used one; a step not newer than
// the stored one (the same code used twice, even at once) is refused.
func (s *Store) AdvanceMFAStep(ctx context.Context, id uuid.UUID, step int64) error {
	res := s.db.WithContext(ctx).Exec("UPDATE users SET mfa_last_step = ? WHERE id = ? AND mfa_last_step < ?", step, id, step)
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return ErrWrongCode
	}
	return nil
}

// SpendRecoveryCode marks an unused recovery code of the user as used and
// reports whether there was one.
func (s *Store) SpendRecoveryCode(ctx context.Context, id uuid.UUID, hash string, now time.Time) (bool, error) {
	res := s.db.WithContext(ctx).Exec(
		"UPDATE user_recovery_codes SET used_at = ? WHERE user_id = ? AND code_hash = ? AND used_at IS NULL", now, id, hash)
	return res.RowsAffected == 1, res.Error
}

// RecoveryCodesLeft counts the user's unused recovery codes.
func (s *Store) RecoveryCodesLeft(ctx context.Context, id uuid.UUID) (int64, error) {
	var n int64
	err := s.db.WithContext(ctx).Raw("SELECT count(*) FROM user_recovery_codes WHERE user_id = ? AND used_at IS NULL", id).Scan(&n).Error
	return n, err
}

// ResetMFA removes the user's second factor and recovery codes and ends
// their sessions.
func (s *Store) ResetMFA(ctx context.Context, id uuid.UUID, now time.Time) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Model(&models.User{}).Where("id = ?", id).Updates(map[string]any{
			"mfa_secret": nil, "mfa_enabled_at": nil, "updated_at": now,
			"session_version": gorm.Expr("session_version + 1"),
		})
		if err := rowsOrNotFound(res); err != nil {
			return err
		}
		return tx.Exec("DELETE FROM user_recovery_codes WHERE user_id = ?", id).Error
	})
}
