package auth

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/models"
)

// Every change to an account, by an admin or by the person themself, is recorded on
// the user's audit trail in the transaction of the change (PCI DSS 10.2.1.5, 10.2.2):
// who, whom, what, the outcome and, through the request's context, the client address.
// The writes of users are GORM's and the trail is pgx's: database.DB.InTx gives both one
// transaction.

// accountHistoryLimit bounds the trail the user page shows.
const accountHistoryLimit = 200

// record appends an account entry about subject, made by actor (nil: the portal or the
// command line), inside tx.
func (s *Service) record(ctx context.Context, q database.Querier, actor *models.User, subject uuid.UUID, action string, d audit.AccountDetails) error {
	return audit.Record(ctx, q, audit.Event{Subject: audit.User(subject), Actor: audit.ActorOf(actor), Action: action, Details: d, At: s.now()})
}

// recordFailure appends a refused attempt on its own (the change it refused never
// happened, so there is no transaction to join). It returns refusal, or the failure to
// record it, which wins: an attempt that cannot be audited is not answered as if it
// had been.
func (s *Service) recordFailure(ctx context.Context, u *models.User, action, reason string, refusal error) error {
	err := audit.Record(ctx, s.db.Pool, audit.Event{Subject: audit.User(u.ID), Actor: audit.ActorOf(u), Action: action,
		Details: audit.AccountDetails{Reason: reason}, At: s.now(), Outcome: audit.Failed})
	if err != nil {
		return err
	}
	return refusal
}

// recordWrongCode records a wrong two-step code typed to change u's second factor;
// other errors (a throttled attempt, a conflict) pass through unrecorded.
func (s *Service) recordWrongCode(ctx context.Context, u *models.User, action string, err error) error {
	if errors.Is(err, ErrWrongCode) {
		return s.recordFailure(ctx, u, action, "wrong code", err)
	}
	return err
}

// AccountHistory is a user's account trail, newest first, for the admin's user page.
func (s *Service) AccountHistory(ctx context.Context, userID uuid.UUID) ([]audit.AccountEntry, error) {
	return audit.AccountHistory(ctx, s.db.Pool, userID, accountHistoryLimit)
}

// SetRole changes a staff account's role (admin or sales rep), recorded, and ends the
// person's sessions so that their next sign-in applies it (an admin must use two-step
// sign-in). Merchant users keep their role (their rights are memberships), and an admin
// cannot change their own role, so the portal always keeps the admin who acts.
func (s *Service) SetRole(ctx context.Context, actor *models.User, id uuid.UUID, role models.Role) error {
	if !role.Staff() {
		return apperr.Invalid("role", "Choose a role: Admin or Sales rep.")
	}
	if actor.ID == id {
		return apperr.New(apperr.KindConflict, "You cannot change your own role; another admin can.")
	}
	return s.db.InTx(ctx, func(tx database.Tx) error {
		users := NewStore(tx.Gorm())
		u, err := users.ByID(ctx, id)
		if err != nil {
			return err
		}
		if !u.Role.Staff() {
			return apperr.New(apperr.KindConflict, "A merchant user's role does not change: their rights are their memberships of merchants.")
		}
		if u.Role == role {
			return nil
		}
		if err := users.SetRole(ctx, id, role, s.now()); err != nil {
			return err
		}
		return s.record(ctx, tx, actor, id, audit.ActionRoleChanged, audit.AccountDetails{FromRole: u.Role.Label(), ToRole: role.Label()})
	})
}

// SetActive activates or deactivates a user, recorded. An admin cannot deactivate
// themselves, so the portal always keeps someone who can manage it.
func (s *Service) SetActive(ctx context.Context, actor *models.User, id uuid.UUID, active bool) error {
	if !active && actor.ID == id {
		return apperr.New(apperr.KindConflict, "You cannot deactivate your own account.")
	}
	action := audit.ActionUserReactivated
	if !active {
		action = audit.ActionUserDeactivated
	}
	return s.db.InTx(ctx, func(tx database.Tx) error {
		users := NewStore(tx.Gorm())
		u, err := users.ByID(ctx, id)
		if err != nil || u.Active == active {
			return err // nothing changes: nothing to record
		}
		if err := users.SetActive(ctx, id, active, s.now()); err != nil {
			return err
		}
		return s.record(ctx, tx, actor, id, action, audit.AccountDetails{})
	})
}

// ResetPassword gives a user a new generated password that must be changed at
// the next sign-in, and ends the user's sessions; actor, the admin, is recorded.
func (s *Service) ResetPassword(ctx context.Context, actor *models.User, id uuid.UUID) (string, error) {
	password := GeneratePassword()
	hash, err := s.hashPassword(ctx, password)
	if err != nil {
		return "", err
	}
	err = s.db.InTx(ctx, func(tx database.Tx) error {
		if err := NewStore(tx.Gorm()).SetPassword(ctx, id, hash, true, s.now()); err != nil {
			return err
		}
		return s.record(ctx, tx, actor, id, audit.ActionPasswordReset, audit.AccountDetails{})
	})
	if err != nil {
		return "", err
	}
	return password, nil
}

// ChangePassword replaces a user's own password after checking the current one. A
// wrong current password is recorded as a failed attempt.
func (s *Service) ChangePassword(ctx context.Context, u *models.User, current, next, confirm string) error {
	errs := apperr.FieldErrors{}
	wrongCurrent := false
	if ok, err := s.checkPassword(ctx, u.PasswordHash, current); err != nil {
		return err
	} else if !ok {
		errs["current_password"] = "This is not your current password."
		wrongCurrent = true
	}
	if msg := CheckPasswordStrength(next, u.Email); msg != "" {
		errs["new_password"] = msg
	} else if next == current {
		errs["new_password"] = "Choose a password different from the current one."
	}
	if next != confirm {
		errs["confirm_password"] = "The two new passwords do not match."
	}
	if wrongCurrent {
		return s.recordFailure(ctx, u, audit.ActionPasswordChanged, "the current password typed was wrong", errs.Err())
	}
	if len(errs) > 0 {
		return &apperr.ValidationError{Fields: errs}
	}
	hash, err := s.hashPassword(ctx, next)
	if err != nil {
		return err
	}
	return s.db.InTx(ctx, func(tx database.Tx) error {
		if err := NewStore(tx.Gorm()).SetPassword(ctx, u.ID, hash, false, s.now()); err != nil {
			return err
		}
		return s.record(ctx, tx, u, u.ID, audit.ActionPasswordChanged, audit.AccountDetails{})
	})
}
