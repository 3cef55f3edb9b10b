package pricing

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/models"
)

// ErrStale refuses a save based on an outdated copy of a model: someone else
// changed it since the form was opened.
var ErrStale = apperr.New(apperr.KindConflict,
	"Someone else changed this pricing model while you were editing it, so nothing was saved. Their change is in the history below; save again to replace it with yours.")

// ErrArchived refuses changes to an archived model.
var ErrArchived = apperr.New(apperr.KindConflict, "This pricing model is archived. Restore it before changing it.")

// Service holds the use cases of pricing models.
type Service struct {
	store *Store
	now   func() time.Time
	log   *slog.Logger
	// codes, in sandbox mode, issues saved models' codes at the sandbox.
	codes CodeQueue
}

// NewService returns the pricing service. now is injectable for tests.
func NewService(db *gorm.DB, now func() time.Time, log *slog.Logger) *Service {
	return &Service{store: NewStore(db), now: now, log: log}
}

// ListSelectable lists the models a rep may choose for an application: active,
// not archived, by name.
func (s *Service) ListSelectable(ctx context.Context) ([]models.PricingModel, error) {
	return s.store.ListSelectable(ctx)
}

// Get loads any model, archived ones included, so that applications keep
// showing the model they use. An unknown id is models.ErrNotFound.
func (s *Service) Get(ctx context.Context, id uuid.UUID) (*models.PricingModel, error) {
	return s.store.ByID(ctx, id)
}

// IsSelectable reports whether a rep may choose the model now. An unknown id
// is simply not selectable.
func (s *Service) IsSelectable(ctx context.Context, id uuid.UUID) (bool, error) {
	m, err := s.store.ByID(ctx, id)
	if errors.Is(err, models.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return m.Selectable(), nil
}

// SnapshotCode returns the upstream code to copy onto an application when it
// is submitted. An inactive model still gives its code, since a draft that
// chose it may finish; an archived one is refused with a message for the rep,
// because its code may since have been given to another model.
func (s *Service) SnapshotCode(ctx context.Context, id uuid.UUID) (string, error) {
	m, err := s.store.ByID(ctx, id)
	if err != nil {
		return "", err
	}
	if m.Archived() {
		return "", apperr.New(apperr.KindConflict,
			"The pricing model “%s” has been withdrawn. Choose another pricing model before submitting.", m.Name)
	}
	return m.UpstreamCode, nil
}

// Listing is what the admin list shows: current models (active or not) apart
// from archived ones.
type Listing struct {
	Current  []ListedModel
	Archived []ListedModel
}

// ListedModel is a model with the number of applications that use it.
type ListedModel struct {
	models.PricingModel
	Applications int64
}

// ListForAdmin lists every model for the admin page.
func (s *Service) ListForAdmin(ctx context.Context) (*Listing, error) {
	all, err := s.store.ListAll(ctx)
	if err != nil {
		return nil, err
	}
	counts, err := s.store.UsageCounts(ctx)
	if err != nil {
		return nil, err
	}
	l := &Listing{}
	for _, m := range all {
		item := ListedModel{PricingModel: m, Applications: counts[m.ID]}
		if m.Archived() {
			l.Archived = append(l.Archived, item)
		} else {
			l.Current = append(l.Current, item)
		}
	}
	return l, nil
}

// InUse reports whether any application references the model, which forbids
// deleting it.
func (s *Service) InUse(ctx context.Context, id uuid.UUID) (bool, error) {
	n, err := s.store.References(ctx, id)
	return n > 0, err
}

// validate checks an input for the model id (uuid.Nil for a new one) and
// returns every problem at once, by field, as an *apperr.ValidationError,
// including a code that a current model other than id already uses. It is the
// one place pricing models are validated: Create and Update call it.
func (s *Service) validate(ctx context.Context, id uuid.UUID, in Input) error {
	in = in.normalized()
	errs := in.Validate()
	if errs[FieldUpstreamCode] == "" {
		other, err := s.store.currentByCode(ctx, in.UpstreamCode)
		switch {
		case err == nil && other.ID != id:
			errs[FieldUpstreamCode] = codeTakenMessage(other)
		case err != nil && !errors.Is(err, models.ErrNotFound):
			return err
		}
	}
	return errs.Err()
}

func codeTakenMessage(other *models.PricingModel) string {
	return "The current pricing model “" + other.Name + "” already uses this code. Each code may belong to only one model that is not archived."
}

// codeTaken explains a code that the unique index refused, after a race the
// check in Validate could not see, naming the current model that holds it.
func (s *Service) codeTaken(ctx context.Context, code string) error {
	msg := "Another current pricing model already uses this code. Each code may belong to only one model that is not archived."
	if other, err := s.store.currentByCode(ctx, code); err == nil {
		msg = codeTakenMessage(other)
	}
	return apperr.Invalid(FieldUpstreamCode, msg)
}

func actorID(actor *models.User) *uuid.UUID {
	if actor == nil {
		return nil
	}
	id := actor.ID
	return &id
}
