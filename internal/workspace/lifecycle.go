package workspace

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/models"
)

// Errors of the lifecycle use cases, worded for people.
var (
	errRevealForbidden   = apperr.New(apperr.KindForbidden, "Only admins can reveal personal data.")
	errReassignForbidden = apperr.New(apperr.KindForbidden, "Only admins can reassign applications.")
	errUnknownSecret     = apperr.New(apperr.KindInvalid, "There is no such personal-data field on this application; reload the page.")
	errNoAssignee        = apperr.New(apperr.KindInvalid, "Choose an active user to hand the application to.")
	errAlreadyRestored   = apperr.New(apperr.KindConflict, "This application is not deleted.")
)

// Revealed is a personal-data value shown to an admin on request.
type Revealed struct {
	// Field is the canonical field name ("owners.0.ssn"), Key its stable key.
	Field, Key string
	Value      string
}

// Reveal shows an admin the plain value of one personal-data field, named by its stable key
// ("business.tin", "bank.account_number", "owners.<owner id>.ssn"), and records that it was
// revealed (the field, never the value). Anyone else gets 404 for another rep's application
// and 403 for their own.
func (s *Service) Reveal(ctx context.Context, u *models.User, id uuid.UUID, key string) (*Revealed, error) {
	rec, err := s.Load(ctx, u, id)
	if err != nil {
		return nil, err
	}
	if !u.IsAdmin() {
		return nil, errRevealForbidden
	}
	for _, f := range rec.Draft.SensitiveFields() {
		if f.Key != key {
			continue
		}
		ev := event(id, u, audit.ActionRevealed, s.now(), []string{f.Field}, audit.Details{Key: f.Key})
		if err := audit.Record(ctx, s.store.Querier(), ev); err != nil {
			return nil, err
		}
		s.log.Info("personal data revealed", "application_id", id, "user_id", u.ID, "field", f.Field)
		return &Revealed{Field: f.Field, Key: f.Key, Value: *f.Value}, nil
	}
	return nil, errUnknownSecret
}

// Reassign hands an application to another active user. Admins only.
func (s *Service) Reassign(ctx context.Context, u *models.User, id, to uuid.UUID) error {
	return s.store.InTx(ctx, func(tx pgx.Tx) error {
		a, err := s.store.Visible(ctx, tx, u, id)
		if err != nil {
			return err
		}
		if !u.IsAdmin() {
			return errReassignForbidden
		}
		target, err := s.store.User(ctx, tx, to)
		if errors.Is(err, models.ErrNotFound) || (err == nil && (!target.Active || !target.Role.Staff())) {
			return errNoAssignee
		}
		if err != nil {
			return err
		}
		if a.OwnerID == to {
			return nil
		}
		from, err := s.store.User(ctx, tx, a.OwnerID)
		if err != nil {
			return err
		}
		now := s.now()
		if err := s.store.SetOwner(ctx, tx, id, to, now); err != nil {
			return err
		}
		return audit.Record(ctx, tx, event(id, u, audit.ActionReassigned, now, nil, audit.Details{
			FromID: from.ID.String(), FromName: from.DisplayName(), ToID: target.ID.String(), ToName: target.DisplayName(),
		}))
	})
}

// Delete soft-deletes an application its owner or an admin may edit. Only admins see it
// afterwards, in the deleted list, and can restore it.
func (s *Service) Delete(ctx context.Context, u *models.User, id uuid.UUID) error {
	return s.store.InTx(ctx, func(tx pgx.Tx) error {
		if _, err := s.store.Editable(ctx, tx, u, id); err != nil {
			return err
		}
		now := s.now()
		if err := s.store.SoftDelete(ctx, tx, id, u.ID, now); err != nil {
			if errors.Is(err, applications.ErrNoMatch) {
				return models.ErrNotFound
			}
			return err
		}
		return audit.Record(ctx, tx, event(id, u, audit.ActionDeleted, now, nil, audit.Details{}))
	})
}

// Restore undoes a delete. Admins only; for anyone else a deleted application does not exist.
func (s *Service) Restore(ctx context.Context, u *models.User, id uuid.UUID) error {
	if !u.IsAdmin() {
		return models.ErrNotFound
	}
	return s.store.InTx(ctx, func(tx pgx.Tx) error {
		if _, err := s.store.Deleted(ctx, tx, id); err != nil {
			if errors.Is(err, models.ErrNotFound) {
				if _, verr := s.store.Visible(ctx, tx, u, id); verr == nil {
					return errAlreadyRestored
				}
			}
			return err
		}
		now := s.now()
		if err := s.store.Restore(ctx, tx, id, now); err != nil {
			if errors.Is(err, applications.ErrNoMatch) {
				return errAlreadyRestored
			}
			return err
		}
		return audit.Record(ctx, tx, event(id, u, audit.ActionRestored, now, nil, audit.Details{}))
	})
}
