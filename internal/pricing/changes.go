package pricing

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/models"
)

// Create validates and stores a new model, and records who created it.
func (s *Service) Create(ctx context.Context, actor *models.User, in Input) (*models.PricingModel, error) {
	in = in.normalized()
	if err := s.validate(ctx, uuid.Nil, in); err != nil {
		return nil, err
	}
	now := s.now()
	m := &models.PricingModel{
		ID: uuid.New(), RequiredDocumentTypes: pq.StringArray{}, Version: 1,
		CreatedBy: actorID(actor), CreatedAt: now, UpdatedAt: now,
	}
	in.apply(m)
	err := s.store.inTx(ctx, func(tx *Store) error {
		if err := tx.Create(ctx, m); err != nil {
			return err
		}
		return tx.AddEvent(ctx, newEvent(m.ID, actor, ActionCreated, now).withNewCode(m.UpstreamCode).record())
	})
	if errors.Is(err, errCodeTaken) {
		return nil, s.codeTaken(ctx, in.UpstreamCode)
	}
	if err != nil {
		return nil, err
	}
	s.issueCode(ctx, m)
	return m, nil
}

// Update applies an admin's edit made on version of the model. An edit that
// changes nothing records nothing.
func (s *Service) Update(ctx context.Context, actor *models.User, id uuid.UUID, version int, in Input) (*models.PricingModel, error) {
	in = in.normalized()
	if err := s.validate(ctx, id, in); err != nil {
		return nil, err
	}
	var m *models.PricingModel
	err := s.store.inTx(ctx, func(tx *Store) (err error) {
		if m, err = tx.byIDForUpdate(ctx, id); err != nil {
			return err
		}
		if m.Archived() {
			return ErrArchived
		}
		if m.Version != version {
			return ErrStale
		}
		changed := in.changedFields(m)
		if len(changed) == 0 {
			return nil
		}
		now := s.now()
		e := newEvent(m.ID, actor, ActionUpdated, now).withFields(changed)
		if in.UpstreamCode != m.UpstreamCode {
			e = e.withOldCode(m.UpstreamCode).withNewCode(in.UpstreamCode)
		}
		in.apply(m)
		m.Version++
		m.UpdatedAt = now
		if err := tx.Update(ctx, m); err != nil {
			return err
		}
		return tx.AddEvent(ctx, e.record())
	})
	if errors.Is(err, errCodeTaken) {
		return nil, s.codeTaken(ctx, in.UpstreamCode)
	}
	if err != nil {
		return nil, err
	}
	s.issueCode(ctx, m)
	return m, nil
}

// Archive retires a model: reps can no longer choose it, and applications that
// use it keep showing it. Archiving an archived model changes nothing.
func (s *Service) Archive(ctx context.Context, actor *models.User, id uuid.UUID) (*models.PricingModel, error) {
	var m *models.PricingModel
	err := s.store.inTx(ctx, func(tx *Store) (err error) {
		if m, err = tx.byIDForUpdate(ctx, id); err != nil || m.Archived() {
			return err
		}
		now := s.now()
		m.ArchivedAt = timePtr(now)
		m.Version++
		m.UpdatedAt = now
		if err := tx.Update(ctx, m); err != nil {
			return err
		}
		return tx.AddEvent(ctx, newEvent(m.ID, actor, ActionArchived, now).record())
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// Restore brings an archived model back. It is refused when a current model
// has taken the code in the meantime, since a code may belong to one current
// model only.
func (s *Service) Restore(ctx context.Context, actor *models.User, id uuid.UUID) (*models.PricingModel, error) {
	var m *models.PricingModel
	err := s.store.inTx(ctx, func(tx *Store) (err error) {
		if m, err = tx.byIDForUpdate(ctx, id); err != nil || !m.Archived() {
			return err
		}
		now := s.now()
		m.ArchivedAt = nil
		m.Version++
		m.UpdatedAt = now
		if err := tx.Update(ctx, m); err != nil {
			return err
		}
		return tx.AddEvent(ctx, newEvent(m.ID, actor, ActionRestored, now).record())
	})
	if errors.Is(err, errCodeTaken) {
		other := "another current pricing model"
		if o, lerr := s.store.currentByCode(ctx, m.UpstreamCode); lerr == nil {
			other = "the current pricing model “" + o.Name + "”"
		}
		return nil, apperr.New(apperr.KindConflict,
			"“%s” cannot be restored: %s now uses its code %s. Change that model's code or archive it, then restore this one.",
			m.Name, other, m.UpstreamCode)
	}
	if err != nil {
		return nil, err
	}
	s.issueCode(ctx, m)
	return m, nil
}

// Delete removes a model that no application has ever used; one in use can
// only be archived. The model's history, with the deletion, is kept.
func (s *Service) Delete(ctx context.Context, actor *models.User, id uuid.UUID) (*models.PricingModel, error) {
	var m *models.PricingModel
	err := s.store.inTx(ctx, func(tx *Store) (err error) {
		// The row lock makes an application that is choosing the model right
		// now either finish first (and be counted) or fail its foreign key.
		if m, err = tx.byIDForUpdate(ctx, id); err != nil {
			return err
		}
		n, err := tx.References(ctx, id)
		if err != nil {
			return err
		}
		if n > 0 {
			return errReferenced
		}
		e := newEvent(m.ID, actor, ActionDeleted, s.now()).withOldCode(m.UpstreamCode).withName(m.Name)
		if err := tx.AddEvent(ctx, e.record()); err != nil {
			return err
		}
		return tx.Delete(ctx, id)
	})
	if errors.Is(err, errReferenced) {
		return nil, inUseError(m)
	}
	if err != nil {
		return nil, err
	}
	s.log.Info("pricing model deleted", "pricing_model_id", m.ID, "upstream_code", m.UpstreamCode, "actor_id", actorID(actor))
	return m, nil
}

// inUseError explains why a model cannot be deleted and what to do instead.
func inUseError(m *models.PricingModel) error {
	return apperr.New(apperr.KindConflict,
		"“%s” is used by applications, so it cannot be deleted. Archive it instead: reps will no longer be able to choose it, and the applications that use it keep it.",
		m.Name)
}
