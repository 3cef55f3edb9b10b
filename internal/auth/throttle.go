package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"gorm.io/gorm"
)

// ThrottleLimits bounds failed sign-ins within a sliding window.
type ThrottleLimits struct {
	Window     time.Duration
	PerAccount int
	PerAddress int
}

// DefaultThrottleLimits allow 5 failures per account and 20 per client address in 15 minutes.
var DefaultThrottleLimits = ThrottleLimits{Window: 15 * time.Minute, PerAccount: 5, PerAddress: 20}

// throttle counts failed sign-ins in Postgres, so every portal instance sees
// the same counts. Accounts are keyed by a hash of the typed e-mail, whether or
// not such a user exists, so throttling reveals nothing about which e-mails exist.
type throttle struct {
	db     *gorm.DB
	limits ThrottleLimits
}

func accountKey(email string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(strings.TrimSpace(email))))
	return hex.EncodeToString(sum[:])
}

// retryAfter returns how long until another attempt is allowed, or 0.
func (t *throttle) retryAfter(ctx context.Context, email, ip string, now time.Time) (time.Duration, error) {
	since := now.Add(-t.limits.Window)
	var row struct {
		AccountCount int
		AccountFirst *time.Time
		AddressCount int
		AddressFirst *time.Time
	}
	err := t.db.WithContext(ctx).Raw(`
		SELECT
		  (SELECT count(*) FROM login_failures WHERE account_key = ? AND created_at > ?) AS account_count,
		  (SELECT min(created_at) FROM (SELECT created_at FROM login_failures WHERE account_key = ? AND created_at > ? ORDER BY created_at DESC LIMIT ?) a) AS account_first,
		  (SELECT count(*) FROM login_failures WHERE client_ip = ? AND created_at > ?) AS address_count,
		  (SELECT min(created_at) FROM (SELECT created_at FROM login_failures WHERE client_ip = ? AND created_at > ? ORDER BY created_at DESC LIMIT ?) b) AS address_first`,
		accountKey(email), since, accountKey(email), since, t.limits.PerAccount,
		ip, since, ip, since, t.limits.PerAddress).Scan(&row).Error
	if err != nil {
		return 0, err
	}
	var wait time.Duration
	// Blocked until the oldest of the last N failures leaves the window.
	if row.AccountCount >= t.limits.PerAccount && row.AccountFirst != nil {
		wait = max(wait, row.AccountFirst.Add(t.limits.Window).Sub(now))
	}
	if row.AddressCount >= t.limits.PerAddress && row.AddressFirst != nil {
		wait = max(wait, row.AddressFirst.Add(t.limits.Window).Sub(now))
	}
	return max(wait, 0), nil
}

// recordAttempt counts a sign-in attempt as a failure before the password
// is checked, and returns its row id for forgetSuccess.
func (t *throttle) recordAttempt(ctx context.Context, email, ip string, now time.Time) (int64, error) {
	var id int64
	err := t.db.WithContext(ctx).Raw(
		"INSERT INTO login_failures (account_key, client_ip, created_at) VALUES (?, ?, ?) RETURNING id",
		accountKey(email), ip, now).Scan(&id).Error
	return id, err
}

// forgetSuccess removes a successful attempt and the account's earlier
// failures.
func (t *throttle) forgetSuccess(ctx context.Context, email string, attempt int64) error {
	return t.db.WithContext(ctx).Exec("DELETE FROM login_failures WHERE id = ? OR account_key = ?", attempt, accountKey(email)).Error
}

func (t *throttle) recordFailure(ctx context.Context, email, ip string, now time.Time) error {
	return t.db.WithContext(ctx).Exec(
		"INSERT INTO login_failures (account_key, client_ip, created_at) VALUES (?, ?, ?)",
		accountKey(email), ip, now).Error
}

// forgetAccount clears an account's failures after a successful sign-in.
func (t *throttle) forgetAccount(ctx context.Context, email string) error {
	return t.db.WithContext(ctx).Exec("DELETE FROM login_failures WHERE account_key = ?", accountKey(email)).Error
}
