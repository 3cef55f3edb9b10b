package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/models"
)

// InvitationLifetime is how long an invitation link works.
const InvitationLifetime = 72 * time.Hour

// ErrInvitationInvalid answers a link that is unknown, used or expired; the
// three are not told apart.
var ErrInvitationInvalid = apperr.New(apperr.KindNotFound, "This invitation link does not work any more: it was used already or has expired. Ask an administrator for a new one.")

// invitation is a row of user_invitations. Only the token's hash is stored.
type invitation struct {
	TokenHash string `gorm:"primaryKey"`
	UserID    string
	CreatedBy *string
	CreatedAt time.Time
	ExpiresAt time.Time
	UsedAt    *time.Time
}

func (invitation) TableName() string { return "user_invitations" }

func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Invite creates a user who chooses their own password through a one-time
// link, and returns the link's token. Nobody, the admin included, ever knows a
// password for the account before the invited user sets one.
func (s *Service) Invite(ctx context.Context, actor *models.User, in NewUser) (*models.User, string, time.Time, error) {
	return s.invite(ctx, actor, in, false)
}

// InviteMerchantUser creates a merchant user (role merchant) who chooses
// their own password through a one-time link, and returns the link's token.
// The merchants room gives them their memberships and sends the link.
func (s *Service) InviteMerchantUser(ctx context.Context, actor *models.User, email, name string) (*models.User, string, time.Time, error) {
	return s.invite(ctx, actor, NewUser{Email: email, Name: name, Role: models.RoleMerchant}, true)
}

// ReInvite issues a fresh one-time link for a user who never used theirs
// (it expired, or was lost), and returns its token.
func (s *Service) ReInvite(ctx context.Context, actor, u *models.User) (string, time.Time, error) {
	return s.newInvitation(ctx, actor, u)
}

// PendingInvitations returns, for every user invited who never chose a
// password through an invitation, when their newest link expires (in the
// past when it has).
func (s *Service) PendingInvitations(ctx context.Context) (map[uuid.UUID]time.Time, error) {
	var rows []struct {
		UserID  uuid.UUID
		Expires time.Time
	}
	err := s.users.db.WithContext(ctx).Raw(`SELECT user_id, max(expires_at) AS expires FROM user_invitations
		GROUP BY user_id HAVING bool_and(used_at IS NULL)`).Scan(&rows).Error
	if err != nil {
		return nil, err
	}
	out := make(map[uuid.UUID]time.Time, len(rows))
	for _, r := range rows {
		out[r.UserID] = r.Expires
	}
	return out, nil
}

// ErrInvitationAccepted refuses to invite again a person who already chose a password.
var ErrInvitationAccepted = apperr.New(apperr.KindConflict, "This person already accepted their invitation and chose a password; reset their password instead.")

// InvitationAccepted reports whether the user ever chose a password through
// an invitation link.
func (s *Service) InvitationAccepted(ctx context.Context, userID uuid.UUID) (bool, error) {
	var n int64
	err := s.users.db.WithContext(ctx).Model(&invitation{}).Where("user_id = ? AND used_at IS NOT NULL", userID.String()).Count(&n).Error
	return n > 0, err
}

func (s *Service) invite(ctx context.Context, actor *models.User, in NewUser, merchant bool) (*models.User, string, time.Time, error) {
	in.Password = ""
	u, _, err := s.createUser(ctx, in, merchant)
	if err != nil {
		return nil, "", time.Time{}, err
	}
	// The generated password of CreateUser is thrown away unseen.
	if err := s.users.db.WithContext(ctx).Model(u).Update("must_change_password", false).Error; err != nil {
		return nil, "", time.Time{}, err
	}
	token, expires, err := s.newInvitation(ctx, actor, u)
	return u, token, expires, err
}

func (s *Service) newInvitation(ctx context.Context, actor *models.User, u *models.User) (string, time.Time, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", time.Time{}, err
	}
	token := base64.RawURLEncoding.EncodeToString(b)
	now := s.now()
	inv := invitation{TokenHash: hashToken(token), UserID: u.ID.String(), CreatedAt: now, ExpiresAt: now.Add(InvitationLifetime)}
	if actor != nil {
		id := actor.ID.String()
		inv.CreatedBy = &id
	}
	if err := s.users.db.WithContext(ctx).Create(&inv).Error; err != nil {
		return "", time.Time{}, err
	}
	return token, inv.ExpiresAt, nil
}

// InvitedUser returns the user a working invitation token belongs to.
func (s *Service) InvitedUser(ctx context.Context, token string) (*models.User, error) {
	var inv invitation
	err := s.users.db.WithContext(ctx).
		Where("token_hash = ? AND used_at IS NULL AND expires_at > ?", hashToken(token), s.now()).Take(&inv).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, ErrInvitationInvalid
	}
	if err != nil {
		return nil, err
	}
	var user models.User
	if err := s.users.db.WithContext(ctx).Where("id = ? AND active", inv.UserID).Take(&user).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil, ErrInvitationInvalid
		}
		return nil, err
	}
	return &user, nil
}

// AcceptInvitation sets the invited user's password and uses up the link. The
// invitation row is locked, so a link clicked twice at once works once.
func (s *Service) AcceptInvitation(ctx context.Context, token, password, confirm string) (*models.User, error) {
	var accepted *models.User
	err := s.users.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var inv invitation
		err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).
			Where("token_hash = ? AND used_at IS NULL AND expires_at > ?", hashToken(token), s.now()).Take(&inv).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return ErrInvitationInvalid
		}
		if err != nil {
			return err
		}
		var u models.User
		if err := tx.Where("id = ? AND active", inv.UserID).Take(&u).Error; err != nil {
			if errors.Is(err, gorm.ErrRecordNotFound) {
				return ErrInvitationInvalid
			}
			return err
		}
		errs := apperr.FieldErrors{}
		if msg := CheckPasswordStrength(password, u.Email); msg != "" {
			errs["new_password"] = msg
		}
		if password != confirm {
			errs["confirm_password"] = "The two passwords do not match."
		}
		if len(errs) > 0 {
			return &apperr.ValidationError{Fields: errs}
		}
		hash, err := s.hashPassword(ctx, password)
		if err != nil {
			return err
		}
		now := s.now()
		if err := NewStore(tx).SetPassword(ctx, u.ID, hash, false, now); err != nil {
			return err
		}
		if err := tx.Model(&inv).Update("used_at", now).Error; err != nil {
			return err
		}
		accepted, err = NewStore(tx).ByID(ctx, u.ID)
		return err
	})
	return accepted, err
}
