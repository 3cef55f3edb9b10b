package workspace

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/models"
)

// msgPricingNotSelectable is the pricing section's message for a model that cannot be chosen.
const msgPricingNotSelectable = "Choose a pricing model from the list; that one is not offered any more."

// SaveResult is the outcome of saving one section.
type SaveResult struct {
	// Record is the application as stored after the save.
	Record *applications.Record
	// Shown are the values to put back in the form: as typed (normalised), personal data
	// masked except a value just typed that was not saved.
	Shown drafts.Draft
	// Errors are the validation messages of the whole draft as shown, by field.
	Errors drafts.FieldErrors
	// Held are the fields of the section whose typed value failed validation and was not
	// saved; everything else the rep typed was.
	Held []string
	// Changed are the fields the save changed, as recorded in the audit trail.
	Changed []string
	// Note tells the rep about an owner added or removed; AddedOwner is the new owner's id.
	Note       string
	AddedOwner string
	// At is when the save happened.
	At time.Time
}

// SectionErrors returns the messages of one section, for its fragment.
func (r *SaveResult) SectionErrors(section string) drafts.FieldErrors {
	return drafts.SectionErrors(r.Errors, section)
}

// Invalid reports whether the saved section has messages to show, so the response is 422.
func (r *SaveResult) Invalid(section string) bool { return len(r.SectionErrors(section)) > 0 }

// SaveSection saves one section of an application u may edit.
//
// Partial data is fine. Every valid value typed is saved; a field whose typed value fails
// validation keeps its stored value (Held) and the form shows the typed value beside its
// message, so nothing is lost from the page and nothing malformed reaches the database.
// Rules across fields (ownership total, card mix) do not hold values back: the checklist
// keeps the application from being submitted until they are met.
//
// A form rendered from an older version is refused with a StaleError (409), so two tabs never
// silently overwrite each other.
func (s *Service) SaveSection(ctx context.Context, u *models.User, id uuid.UUID, in drafts.SectionForm) (*SaveResult, error) {
	var res *SaveResult
	err := s.store.InTx(ctx, func(tx pgx.Tx) error {
		a, err := s.editableFor(ctx, tx, u, id, in.Section)
		if err != nil {
			return err
		}
		if !drafts.IsEditableSection(in.Section) {
			return models.ErrNotFound
		}
		stored, err := s.sealer.OpenApplication(a)
		if err != nil {
			return err
		}
		now := s.now()
		typed := stored.Clone()
		done := in.Apply(&typed)
		typed.EnsureOwnerIDs(uuid.NewString)
		if a.Version != in.Version {
			return staleError(a, typedView(&typed, &stored))
		}

		errs := typed.Validate(now)
		if errs == nil {
			errs = drafts.FieldErrors{}
		}
		if done.Problem != "" {
			errs[drafts.FieldOwners] = done.Problem
		}
		pricingID, pricingMsg, err := s.choosePricing(ctx, a, in)
		if err != nil {
			return err
		}
		if pricingMsg != "" {
			errs[drafts.FieldPricingModel] = pricingMsg
		}

		held := heldFields(&typed, &stored, drafts.SectionErrors(errs, in.Section))
		toSave := typed.Clone()
		for field := range held {
			_ = toSave.Set(field, storedValue(&typed, &stored, field)) // held fields are real fields
		}
		toSave.Normalize()

		changed := drafts.ChangedFields(stored, toSave)
		if !sameID(a.PricingModelID, pricingID) {
			changed = append(changed, drafts.FieldPricingModel)
		}
		if len(changed) > 0 {
			if err := s.write(ctx, tx, u, a, toSave, pricingID, changed, in.Section, now); err != nil {
				return err
			}
		}

		shown := typed.Clone()
		shown.Normalize()
		res = &SaveResult{
			Record: &applications.Record{App: a, Draft: toSave}, Shown: shown.Masked(held), Errors: errs,
			Held: drafts.SortedFields(held), Changed: changed, Note: done.Note, AddedOwner: done.Added, At: now,
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// editableFor loads an application u may change a section of. The internal notes stay
// writable once the application is handed off, as the rep's follow-up log (they are not
// part of what the processor gets); everything else is locked then.
func (s *Service) editableFor(ctx context.Context, tx pgx.Tx, u *models.User, id uuid.UUID, section string) (*models.Application, error) {
	if section != drafts.SectionNotes {
		return s.store.Editable(ctx, tx, u, id)
	}
	a, err := s.store.Visible(ctx, tx, u, id)
	if err != nil {
		return nil, err
	}
	if NotesWritable(a) {
		return a, nil
	}
	return s.store.Editable(ctx, tx, u, id)
}

// NotesWritable reports whether the internal notes of a may change: always, but while it is
// being pushed upstream.
func NotesWritable(a *models.Application) bool {
	return a.Locked() || applications.CheckEditable(a) == nil
}

// write stores the new draft with a version check and records the change.
func (s *Service) write(ctx context.Context, tx pgx.Tx, u *models.User, a *models.Application, d drafts.Draft,
	pricingID *uuid.UUID, changed []string, section string, now time.Time) error {
	raw, err := s.sealer.SealJSON(a.ID, d)
	if err != nil {
		return err
	}
	a.Draft = raw
	a.LegalName = d.Business.LegalName
	a.DBA = d.Business.DBA
	a.ContactName = d.Contact.Name
	a.ContactEmail = d.Contact.Email
	a.TINIndex = s.sealer.TINIndex(d)
	a.PricingModelID = pricingID
	if err := s.store.UpdateDraft(ctx, tx, a, now); err != nil {
		if errors.Is(err, applications.ErrNoMatch) {
			current, lerr := s.store.Visible(ctx, tx, u, a.ID)
			if lerr != nil {
				return lerr
			}
			return staleError(current, nil)
		}
		return err
	}
	return audit.Record(ctx, tx, event(a.ID, u, audit.ActionChanged, now, changed, audit.Details{Section: section}))
}

// choosePricing returns the pricing model the application will use after a save of the
// pricing section, or a message when the choice cannot be taken.
func (s *Service) choosePricing(ctx context.Context, a *models.Application, in drafts.SectionForm) (*uuid.UUID, string, error) {
	choice, ok := in.PricingChoice()
	if !ok {
		return a.PricingModelID, "", nil
	}
	return s.pricingChoice(ctx, a.PricingModelID, choice)
}

// pricingChoice is the pricing model chosen ("" for none) instead of current, or a message
// when it cannot be taken. Keeping the current model is always allowed, even once it is
// archived; a new choice must be selectable.
func (s *Service) pricingChoice(ctx context.Context, current *uuid.UUID, choice string) (*uuid.UUID, string, error) {
	if choice == "" {
		return nil, "", nil
	}
	id, err := uuid.Parse(choice)
	if err != nil {
		return current, msgPricingNotSelectable, nil
	}
	if current != nil && *current == id {
		return current, "", nil
	}
	m, err := s.pricing.Get(ctx, id)
	if errors.Is(err, models.ErrNotFound) {
		return current, msgPricingNotSelectable, nil
	}
	if err != nil {
		return nil, "", err
	}
	if !m.Selectable() {
		return current, msgPricingNotSelectable, nil
	}
	return &id, "", nil
}

// typedView is a draft as typed, for a form shown again without saving: normalised, with
// personal data masked unless it was typed anew.
func typedView(typed, stored *drafts.Draft) *drafts.Draft {
	typedSecrets := map[string]bool{}
	for _, f := range typed.SensitiveFields() {
		if *f.Value != storedValue(typed, stored, f.Field) {
			typedSecrets[f.Field] = true
		}
	}
	shown := typed.Clone()
	shown.Normalize()
	shown = shown.Masked(typedSecrets)
	return &shown
}

// heldFields returns the fields with a message whose typed value differs from the stored one:
// those are held back. A field whose message concerns its stored value (a rule it no longer
// meets) is not held: there is nothing typed to hold.
func heldFields(typed, stored *drafts.Draft, errs drafts.FieldErrors) map[string]bool {
	held := map[string]bool{}
	for field := range errs {
		v, err := typed.Get(field)
		if err != nil {
			continue // a group anchor such as "owners" or "business.card_mix"
		}
		if v != storedValue(typed, stored, field) {
			held[field] = true
		}
	}
	return held
}

// storedValue returns the stored value of a field named by its position in typed: owner
// fields are matched by owner id, and a new owner's fields were empty.
func storedValue(typed, stored *drafts.Draft, field string) string {
	if i, sub := drafts.SplitOwnerField(field); i >= 0 {
		if i >= len(typed.Owners) {
			return ""
		}
		_, j, ok := stored.Owner(typed.Owners[i].ID)
		if !ok {
			return ""
		}
		v, _ := stored.Get(drafts.OwnerField(j, sub))
		return v
	}
	v, _ := stored.Get(field)
	return v
}

func sameID(a, b *uuid.UUID) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
