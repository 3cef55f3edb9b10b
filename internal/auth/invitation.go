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
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/database"
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

// Invite creates a user who chooses their own password through a one-time link, and
// e-mails the link. The account, its invitation, the audit entry and the e-mail are one
// transaction: all of them exist, or none. Nobody, the admin included, ever knows a
// password for the account before the invited user sets one.
func (s *Service) Invite(ctx context.Context, actor *models.User, in NewUser) (*models.User, error) {
	if s.invitations == nil {
		return nil, errors.New("auth: no invitation sender to e-mail the link")
	}
	u, err := s.invitedUser(ctx, in, false)
	if err != nil {
		return nil, err
	}
	err = s.db.InTx(ctx, func(tx database.Tx) error {
		token, expires, err := s.invite(ctx, tx, actor, u)
		if err != nil {
			return err
		}
		return s.invitations.SendInvitation(ctx, tx, actor, u, token, expires)
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// InvitationStep is what a caller does with a fresh one-time link inside the
// transaction that issues it (tx, which it shares with auth's writes): give the
// person their access and queue the e-mail that carries the link. When it fails,
// the account and the link are rolled back with it.
type InvitationStep func(tx database.Tx, invitee *models.User, token string, expires time.Time) error

// InviteMerchantUser creates a merchant user (role merchant) who chooses
// their own password through a one-time link, and returns the link's token.
// then, the merchants room's membership and e-mail, runs in the same
// transaction as the account, its invitation and its audit entry, so a
// merchant user never exists without the access they were invited to; nil
// does nothing more.
func (s *Service) InviteMerchantUser(ctx context.Context, actor *models.User, email, name string, then InvitationStep) (*models.User, string, time.Time, error) {
	u, err := s.invitedUser(ctx, NewUser{Email: email, Name: name, Role: models.RoleMerchant}, true)
	if err != nil {
		return nil, "", time.Time{}, err
	}
	var token string
	var expires time.Time
	err = s.db.InTx(ctx, func(tx database.Tx) error {
		if token, expires, err = s.invite(ctx, tx, actor, u); err != nil {
			return err
		}
		return then.run(tx, u, token, expires)
	})
	if err != nil {
		return nil, "", time.Time{}, err
	}
	return u, token, expires, nil
}

// ReInvite issues a fresh one-time link for a user who never used theirs
// (it expired, or was lost), and returns its token. then (nil: nothing)
// runs in the same transaction and sends it.
func (s *Service) ReInvite(ctx context.Context, actor, u *models.User, then InvitationStep) (string, time.Time, error) {
	var token string
	var expires time.Time
	err := s.db.InTx(ctx, func(tx database.Tx) (err error) {
		if token, expires, err = s.reinvite(ctx, tx, actor, u); err != nil {
			return err
		}
		return then.run(tx, u, token, expires)
	})
	return token, expires, err
}

// run runs the step, if there is one.
func (step InvitationStep) run(tx database.Tx, u *models.User, token string, expires time.Time) error {
	if step == nil {
		return nil
	}
	return step(tx, u, token, expires)
}

// ResendInvitation e-mails a fresh one-time link to a person who never chose a
// password (theirs expired, or was lost), in one transaction with its record.
func (s *Service) ResendInvitation(ctx context.Context, actor, u *models.User) error {
	if s.invitations == nil {
		return errors.New("auth: no invitation sender to e-mail the link")
	}
	accepted, err := s.InvitationAccepted(ctx, u.ID)
	if err != nil {
		return err
	}
	if accepted || !u.Active {
		return ErrInvitationAccepted
	}
	return s.db.InTx(ctx, func(tx database.Tx) error {
		token, expires, err := s.reinvite(ctx, tx, actor, u)
		if err != nil {
			return err
		}
		return s.invitations.SendInvitation(ctx, tx, actor, u, token, expires)
	})
}

// invitedUser is the account of a person invited: its generated password is thrown
// away unseen, so none is to be changed; the link chooses one.
func (s *Service) invitedUser(ctx context.Context, in NewUser, merchant bool) (*models.User, error) {
	in.Password = ""
	u, _, err := s.newUser(ctx, in, merchant)
	if err != nil {
		return nil, err
	}
	u.MustChangePassword = false
	return u, nil
}

// invite stores u with a one-time link, recorded, inside tx.
func (s *Service) invite(ctx context.Context, tx database.Tx, actor, u *models.User) (string, time.Time, error) {
	if err := storeUser(ctx, tx, u); err != nil {
		return "", time.Time{}, err
	}
	token, expires, err := s.newInvitation(ctx, NewStore(tx.Gorm()), actor, u)
	if err != nil {
		return "", time.Time{}, err
	}
	return token, expires, s.record(ctx, tx, actor, u.ID, audit.ActionUserInvited, audit.AccountDetails{Role: u.Role.Label()})
}

// reinvite issues a fresh link for u, recorded, inside tx.
func (s *Service) reinvite(ctx context.Context, tx database.Tx, actor, u *models.User) (string, time.Time, error) {
	token, expires, err := s.newInvitation(ctx, NewStore(tx.Gorm()), actor, u)
	if err != nil {
		return "", time.Time{}, err
	}
	return token, expires, s.record(ctx, tx, actor, u.ID, audit.ActionInvitationResent, audit.AccountDetails{})
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

// newInvitation stores a fresh one-time link of u through users and returns its token.
func (s *Service) newInvitation(ctx context.Context, users *Store, actor *models.User, u *models.User) (string, time.Time, error) {
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
	if err := users.db.WithContext(ctx).Create(&inv).Error; err != nil {
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

// AcceptInvitation sets the invited user's password and uses up the link, recorded.
// The invitation row is locked, so a link clicked twice at once works once.
func (s *Service) AcceptInvitation(ctx context.Context, token, password, confirm string) (*models.User, error) {
	var accepted *models.User
	err := s.db.InTx(ctx, func(tx database.Tx) error {
		var inv invitation
		err := tx.Gorm().WithContext(ctx).Clauses(clause.Locking{Strength: "UPDATE"}).
			Where("token_hash = ? AND used_at IS NULL AND expires_at > ?", hashToken(token), s.now()).Take(&inv).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return ErrInvitationInvalid
		}
		if err != nil {
			return err
		}
		var u models.User
		if err := tx.Gorm().WithContext(ctx).Where("id = ? AND active", inv.UserID).Take(&u).Error; err != nil {
			if errors.Is(err, gorm.ErrRecordNotFound) {
				return ErrInvitationInvalid
			}
			return err
		}
		if err := choosable(password, confirm, u.Email); err != nil {
			return err
		}
		hash, err := s.hashPassword(ctx, password)
		if err != nil {
			return err
		}
		now := s.now()
		users := NewStore(tx.Gorm())
		if err := users.SetPassword(ctx, u.ID, hash, false, now); err != nil {
			return err
		}
		if err := tx.Gorm().WithContext(ctx).Model(&inv).Update("used_at", now).Error; err != nil {
			return err
		}
		if accepted, err = users.ByID(ctx, u.ID); err != nil {
			return err
		}
		return s.record(ctx, tx, accepted, u.ID, audit.ActionInvitationAccepted, audit.AccountDetails{})
	})
	return accepted, err
}

// choosable refuses a password a person may not choose, by field.
func choosable(password, confirm, email string) error {
	errs := apperr.FieldErrors{}
	if msg := CheckPasswordStrength(password, email); msg != "" {
		errs["new_password"] = msg
	}
	if password != confirm {
		errs["confirm_password"] = "The two passwords do not match."
	}
	return errs.Err()
}
