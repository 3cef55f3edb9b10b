// Package auth signs people in and out, keeps their sessions, and lets admins
// manage users.
package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/mail"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/validation"
)

// ErrInvalidCredentials is the one answer for a wrong e-mail, a wrong password
// and a deactivated account, so that no answer reveals which e-mails exist.
var ErrInvalidCredentials = apperr.New(apperr.KindInvalid, "The e-mail address or password is incorrect.")

// ThrottledError says sign-in is refused for a while after too many failures.
type ThrottledError struct{ RetryAfter time.Duration }

func (e *ThrottledError) Error() string {
	minutes := int(e.RetryAfter.Round(time.Minute) / time.Minute)
	if minutes < 1 {
		minutes = 1
	}
	unit := "minutes"
	if minutes == 1 {
		unit = "minute"
	}
	return fmt.Sprintf("Too many failed sign-in attempts. Try again in %d %s.", minutes, unit)
}

// Service holds the use cases of users and sign-in.
type Service struct {
	// db opens the transactions of account changes (users through GORM, the audit
	// trail and the invitation's e-mail through pgx); users reads on the pool.
	db          *database.DB
	invitations InvitationSender
	users       *Store
	throttle    *throttle
	gate        *hashGate
	ring        *fieldcrypt.KeyRing
	mfaPolicy   MFAPolicy
	issuer      string
	now         func() time.Time
	log         *slog.Logger
}

// Options are the settings of the auth service; zero values take defaults.
type Options struct {
	// Limits throttle failed sign-ins. Default DefaultThrottleLimits.
	Limits *ThrottleLimits
	// HashSlots bounds the password hashes computed at once (default: the
	// number of CPUs); HashQueue bounds the sign-ins waiting for one
	// (DefaultHashQueue) and HashWait how long each waits (DefaultHashWait).
	HashSlots int
	HashQueue int
	HashWait  time.Duration
	// KeyRing seals MFA secrets. Without one, MFA cannot be set up.
	KeyRing *fieldcrypt.KeyRing
	// MFAPolicy says who must use MFA. Default AdminsNeedMFA.
	MFAPolicy MFAPolicy
	// Issuer names the portal in authenticator apps.
	Issuer string
	// Now is the clock (tests inject one). Default time.Now.
	Now func() time.Time
	Log *slog.Logger
	// Invitations e-mails invitation links, in the transaction of the invitation.
	// Without one, Admin → Users cannot invite.
	Invitations InvitationSender
}

// InvitationSender queues the e-mail carrying an invitation link, inside tx, the
// transaction that creates the invitation (the portal sends it through the mail outbox).
type InvitationSender interface {
	SendInvitation(ctx context.Context, tx database.Tx, inviter, invitee *models.User, token string, expires time.Time) error
}

// NewService returns the auth service.
func NewService(db *database.DB, opts Options) *Service {
	limits := DefaultThrottleLimits
	if opts.Limits != nil {
		limits = *opts.Limits
	}
	s := &Service{db: db, invitations: opts.Invitations, users: NewStore(db.Gorm), throttle: &throttle{db: db.Gorm, limits: limits}, gate: newHashGate(hashGateOptions{Slots: opts.HashSlots, MaxQueue: opts.HashQueue, MaxWait: opts.HashWait}),
		ring: opts.KeyRing, mfaPolicy: opts.MFAPolicy, issuer: opts.Issuer, now: opts.Now, log: opts.Log}
	if s.mfaPolicy == nil {
		s.mfaPolicy = AdminsNeedMFA
	}
	if s.issuer == "" {
		s.issuer = "Portal"
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

// Users exposes the user store for read-only lookups.
func (s *Service) Users() *Store { return s.users }

// Authenticate checks an e-mail and password from clientIP. The attempt is
// counted as a failure before the password is hashed (and forgotten on
// success), so a burst of attempts is throttled without costing a hash
// each; and only a bounded number of hashes run at once: past that the
// sign-in waits its turn for a slot (*ErrBusy when the wait is too long or
// the queue full). A sign-in that waited is checked against the throttle
// again once it has its slot, so that waiting cannot outrun the limits.
func (s *Service) Authenticate(ctx context.Context, email, password, clientIP string) (*models.User, error) {
	if msg := emailProblem(email); msg != "" {
		// No account has such an address: refused at once, before the throttle's table,
		// which would refuse a NUL byte itself.
		return nil, apperr.Invalid("email", msg)
	}
	if err := s.checkThrottle(ctx, email, clientIP); err != nil {
		return nil, err
	}
	release, waited, err := s.gate.acquire(ctx, clientIP)
	if err != nil {
		return nil, err
	}
	defer release()
	if waited {
		if err := s.checkThrottle(ctx, email, clientIP); err != nil {
			return nil, err
		}
	}
	return s.verify(ctx, email, password, clientIP)
}

// verify counts the attempt, hashes the password against the account's (or
// a dummy's) and forgets the attempt when it matched. The caller holds a
// hashing slot.
func (s *Service) verify(ctx context.Context, email, password, clientIP string) (*models.User, error) {
	attempt, err := s.throttle.recordAttempt(ctx, email, clientIP, s.now())
	if err != nil {
		return nil, err
	}
	user, err := s.users.ByEmail(ctx, email)
	if err != nil && !errors.Is(err, models.ErrNotFound) {
		return nil, err
	}
	hash := dummyHash
	if err == nil {
		hash = user.PasswordHash
	}
	if s.gate.onHash != nil {
		s.gate.onHash()
	}
	ok, verr := VerifyPassword(hash, password)
	if verr != nil {
		s.log.Error("password hash unreadable", "user_id", user.ID, "err", verr)
	}
	if err != nil || !ok || !user.Active {
		return nil, ErrInvalidCredentials
	}
	if err := s.throttle.forgetSuccess(ctx, email, attempt); err != nil {
		return nil, err
	}
	return user, nil
}

// checkThrottle refuses a sign-in for an account or address over its limit
// of failures (*ThrottledError).
func (s *Service) checkThrottle(ctx context.Context, email, clientIP string) error {
	wait, err := s.throttle.retryAfter(ctx, email, clientIP, s.now())
	if err != nil {
		return err
	}
	if wait > 0 {
		return &ThrottledError{RetryAfter: wait}
	}
	return nil
}

// checkPassword verifies a signed-in user's password within the hashing
// bound.
func (s *Service) checkPassword(ctx context.Context, encoded, password string) (bool, error) {
	release, err := s.gate.wait(ctx)
	if err != nil {
		return false, err
	}
	defer release()
	ok, _ := VerifyPassword(encoded, password)
	return ok, nil
}

// hashPassword hashes a new password within the hashing bound, waiting for
// a slot (only signed-in users and invited users with a valid link get here).
func (s *Service) hashPassword(ctx context.Context, password string) (string, error) {
	release, err := s.gate.wait(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	if s.gate.onHash != nil {
		s.gate.onHash()
	}
	return HashPassword(password)
}

// Bounds of a user's name and e-mail address (RFC 5321's path limit).
const (
	MaxNameLength  = 100
	MaxEmailLength = 254
)

const msgEmailFormat = "Enter an e-mail address like name@example.com."

// emailProblem refuses an e-mail address that is not one line of text or is too long,
// before it reaches the database; "" when it may be looked up or stored.
func emailProblem(email string) string {
	if p := validation.CheckText(email, false); p != validation.TextOK {
		return validation.TextMessage("The e-mail address", p)
	}
	if validation.TooLong(email, MaxEmailLength) {
		return validation.LengthMessage("The e-mail address", MaxEmailLength)
	}
	return ""
}

// validate trims the e-mail address and name and returns the problems of in, by field: what
// reaches the users table is one line of text within its bounds.
func (in *NewUser) validate() apperr.FieldErrors {
	in.Email = strings.TrimSpace(in.Email)
	in.Name = strings.TrimSpace(in.Name)
	errs := apperr.FieldErrors{}
	if msg := emailProblem(in.Email); msg != "" {
		errs["email"] = msg
	} else if addr, err := mail.ParseAddress(in.Email); err != nil || addr.Address != in.Email {
		errs["email"] = msgEmailFormat
	}
	switch p := validation.CheckText(in.Name, false); {
	case p != validation.TextOK:
		errs["name"] = validation.TextMessage("The name", p)
	case validation.TooLong(in.Name, MaxNameLength):
		errs["name"] = validation.LengthMessage("The name", MaxNameLength)
	}
	if !in.Role.Valid() {
		errs["role"] = "Choose a role: Admin or Sales rep."
	}
	if in.Password != "" {
		if msg := CheckPasswordStrength(in.Password, in.Email); msg != "" {
			errs["password"] = msg
		}
	}
	return errs
}

// NewUser is what an admin or a script supplies to create a user.
type NewUser struct {
	Email    string
	Name     string
	Role     models.Role
	Password string // empty: a password is generated and must be changed at first sign-in
}

// CreateUser validates and stores a new user of the reseller's staff (an
// admin or a sales rep), returning the password to hand over when one was
// generated. Merchant users are invited from their merchant's page
// (InviteMerchantUser). It is the command line's and the first admin's way: the
// trail names no actor; an admin's is CreateUserBy.
func (s *Service) CreateUser(ctx context.Context, in NewUser) (*models.User, string, error) {
	return s.CreateUserBy(ctx, nil, in)
}

// CreateUserBy is CreateUser by actor, recorded on the new account's trail in the
// transaction that stores it.
func (s *Service) CreateUserBy(ctx context.Context, actor *models.User, in NewUser) (*models.User, string, error) {
	u, generated, err := s.newUser(ctx, in, false)
	if err != nil {
		return nil, "", err
	}
	err = s.db.InTx(ctx, func(tx database.Tx) error {
		if err := storeUser(ctx, tx, u); err != nil {
			return err
		}
		return s.record(ctx, tx, actor, u.ID, audit.ActionUserCreated, audit.AccountDetails{Role: u.Role.Label()})
	})
	if err != nil {
		return nil, "", err
	}
	return u, generated, nil
}

// newUser validates in and returns the account to store, with the password to hand
// over when one was generated. It writes nothing: hashing is slow, and no transaction
// waits for it.
func (s *Service) newUser(ctx context.Context, in NewUser, merchant bool) (*models.User, string, error) {
	errs := in.validate()
	delete(errs, "role")
	switch {
	case merchant && in.Role != models.RoleMerchant, !merchant && !in.Role.Staff():
		errs["role"] = "Choose a role: Admin or Sales rep. (Merchant users are invited from their merchant's page.)"
	}
	generated := ""
	mustChange := false
	if in.Password == "" {
		generated = GeneratePassword()
		in.Password = generated
		mustChange = true
	}
	if len(errs) > 0 {
		return nil, "", &apperr.ValidationError{Fields: errs}
	}
	hash, err := s.hashPassword(ctx, in.Password)
	if err != nil {
		return nil, "", err
	}
	now := s.now()
	return &models.User{
		ID: uuid.New(), Email: in.Email, Name: in.Name, Role: in.Role, PasswordHash: hash,
		Active: true, MustChangePassword: mustChange, SessionVersion: 1, CreatedAt: now, UpdatedAt: now,
	}, generated, nil
}

// storeUser writes a new account inside tx; a taken address is refused at its field.
func storeUser(ctx context.Context, tx database.Tx, u *models.User) error {
	err := NewStore(tx.Gorm()).Create(ctx, u)
	if errors.Is(err, ErrEmailTaken) {
		return &apperr.ValidationError{Fields: apperr.FieldErrors{"email": "A user with this e-mail address already exists."}}
	}
	return err
}

// EndSessions signs a user out everywhere, so that their next sign-in
// applies what changed (a permission that now requires two-step sign-in).
func (s *Service) EndSessions(ctx context.Context, id uuid.UUID) error {
	return s.users.EndSessions(ctx, id, s.now())
}

// EnsureAdmin creates the first admin when none exists. It returns the
// generated password when it made one ("" otherwise).
func (s *Service) EnsureAdmin(ctx context.Context, email, password string) (created bool, generated string, err error) {
	n, err := s.users.CountAdmins(ctx)
	if err != nil || n > 0 {
		return false, "", err
	}
	if email == "" {
		email = "admin@example.com"
	}
	_, generated, err = s.CreateUser(ctx, NewUser{Email: email, Name: "Administrator", Role: models.RoleAdmin, Password: password})
	if err != nil {
		var ve *apperr.ValidationError
		// Replicas starting together on an empty database each find no admin;
		// the first to create it wins, and the others find it made.
		if n, cerr := s.users.CountAdmins(ctx); cerr == nil && n > 0 {
			return false, "", nil
		}
		if errors.As(err, &ve) {
			return false, "", fmt.Errorf("admin user: %v", ve.Fields)
		}
		return false, "", err
	}
	return true, generated, nil
}
