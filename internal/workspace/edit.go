package workspace

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/models"
)

// Change is a change of an application named field by field (the partner API's create
// and update): the draft's fields and, when Pricing is set, the pricing model ("" for
// none).
type Change struct {
	Edit    drafts.Edit
	Pricing *string
}

// CreateFrom starts an application owned by u holding the change's values. Unlike the
// form, which keeps every valid value and shows the rest beside their messages, a
// structured client gets all or nothing: a value that fails validation refuses the
// whole change (*apperr.ValidationError, by canonical field name, with the form's
// messages) and nothing is stored.
func (s *Service) CreateFrom(ctx context.Context, u *models.User, c Change) (*applications.Record, error) {
	now := s.now()
	a := &models.Application{ID: uuid.New(), OwnerID: u.ID, Status: models.StatusDraft, Version: 1, CreatedAt: now, UpdatedAt: now}
	d, set, pricingID, err := s.applyChange(ctx, a, drafts.Draft{}, c, now)
	if err != nil {
		return nil, err
	}
	a.PricingModelID = pricingID
	raw, err := s.sealer.SealJSON(a.ID, d)
	if err != nil {
		return nil, err
	}
	a.Draft, a.TINIndex = raw, s.sealer.TINIndex(d)
	a.LegalName, a.DBA, a.ContactName, a.ContactEmail = d.Business.LegalName, d.Business.DBA, d.Contact.Name, d.Contact.Email
	err = s.store.InTx(ctx, func(tx pgx.Tx) error {
		if err := s.store.Insert(ctx, tx, a); err != nil {
			return err
		}
		return audit.Record(ctx, tx, event(a.ID, u, audit.ActionCreated, now, set, audit.Details{}))
	})
	if err != nil {
		return nil, err
	}
	s.log.Info("application created", "application_id", a.ID, "user_id", u.ID, "fields", len(set))
	return &applications.Record{App: a, Draft: d}, nil
}

// Change applies a change to an application u may edit, if it still has version (a
// *StaleError otherwise: someone changed it since the client read it). All or nothing,
// as CreateFrom. The internal notes alone may change once the application is handed
// off, as on the page.
func (s *Service) Change(ctx context.Context, u *models.User, id uuid.UUID, version int, c Change) (*applications.Record, []string, error) {
	var (
		rec     *applications.Record
		changed []string
	)
	err := s.store.InTx(ctx, func(tx pgx.Tx) error {
		a, err := s.editableFor(ctx, tx, u, id, c.section())
		if err != nil {
			return err
		}
		if a.Version != version {
			return staleError(a, nil)
		}
		stored, err := s.sealer.OpenApplication(a)
		if err != nil {
			return err
		}
		now := s.now()
		d, _, pricingID, err := s.applyChange(ctx, a, stored, c, now)
		if err != nil {
			return err
		}
		changed = drafts.ChangedFields(stored, d)
		if !sameID(a.PricingModelID, pricingID) {
			changed = append(changed, drafts.FieldPricingModel)
		}
		if len(changed) > 0 {
			if err := s.write(ctx, tx, u, a, d, pricingID, changed, c.section(), now); err != nil {
				return err
			}
		}
		rec = &applications.Record{App: a, Draft: d}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return rec, changed, nil
}

// section is the section a change stays within, for the rule that notes remain writable
// after the hand-off: "notes" when it sets the notes alone, "" otherwise.
func (c Change) section() string {
	if c.Pricing != nil || c.Edit.OwnersSet || len(c.Edit.Values) == 0 {
		return ""
	}
	for name := range c.Edit.Values {
		if name != drafts.FieldNotes {
			return ""
		}
	}
	return drafts.SectionNotes
}

// applyChange makes c on the stored draft and returns the draft to store, the fields c
// set and the pricing model after it; a refused value is a *apperr.ValidationError.
// Only the values c changes are held to the rules: a rule the stored values no longer
// meet, or one across fields, is the checklist's business, as on the page.
func (s *Service) applyChange(ctx context.Context, a *models.Application, stored drafts.Draft, c Change, now time.Time) (drafts.Draft, []string, *uuid.UUID, error) {
	d := stored.Clone()
	set, errs := c.Edit.Apply(&d, uuid.NewString)
	if errs == nil {
		errs = drafts.FieldErrors{}
	}
	all := d.Validate(now)
	for _, field := range set {
		msg, ok := all[field]
		if v, _ := d.Get(field); ok && v != storedValue(&d, &stored, field) {
			errs.Add(field, msg) // a value sent again as stored is no refusal, as on the page
		}
	}
	pricingID := a.PricingModelID
	if c.Pricing != nil {
		id, msg, err := s.pricingChoice(ctx, a.PricingModelID, *c.Pricing)
		if err != nil {
			return drafts.Draft{}, nil, nil, err
		}
		pricingID = id
		if msg != "" {
			errs.Add(drafts.FieldPricingModel, msg)
		}
	}
	if err := apperr.FieldErrors(errs).Err(); err != nil {
		return drafts.Draft{}, nil, nil, err
	}
	d.EnsureOwnerIDs(uuid.NewString)
	d.Normalize()
	return d, set, pricingID, nil
}
