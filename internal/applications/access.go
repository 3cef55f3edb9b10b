package applications

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/models"
)

// ErrLocked is returned by every editing use case once the hand-off link exists:
// from then on only the merchant may change values, upstream.
var ErrLocked = apperr.New(apperr.KindConflict, "This application has been handed off to the merchant and can no longer be changed here.")

// Visible loads an application the user may see: admins see every one, a sales rep only
// those they own. Soft-deleted applications are hidden. Anything the user may not see is
// reported as models.ErrNotFound, so that a rep cannot even learn that another rep's
// application exists.
func (s *Store) Visible(ctx context.Context, q database.Querier, u *models.User, id uuid.UUID) (*models.Application, error) {
	a, err := s.Get(ctx, q, id)
	if err != nil {
		return nil, err
	}
	if !u.IsAdmin() && a.OwnerID != u.ID {
		return nil, models.ErrNotFound
	}
	return a, nil
}

// Editable is Visible for changes: it also refuses a locked application (409) and one that
// is being pushed upstream right now.
func (s *Store) Editable(ctx context.Context, q database.Querier, u *models.User, id uuid.UUID) (*models.Application, error) {
	a, err := s.Visible(ctx, q, u, id)
	if err != nil {
		return nil, err
	}
	if err := CheckEditable(a); err != nil {
		return nil, err
	}
	return a, nil
}

// LockEditable re-reads the application under a share lock inside tx and says whether
// its documents may still change: a change commits only if the application was still
// editable at that moment, and submitting, which updates the row, waits for it.
func (s *Store) LockEditable(ctx context.Context, tx pgx.Tx, id uuid.UUID) error {
	a, err := one(ctx, tx, "lock application", `SELECT `+columns+` FROM applications
		WHERE id = $1 AND deleted_at IS NULL FOR SHARE`, id)
	if err != nil {
		return err
	}
	return CheckEditable(a)
}

// CheckEditable says whether an application's draft may still change.
func CheckEditable(a *models.Application) error {
	if a.Locked() || a.Status == models.StatusLinked {
		return ErrLocked
	}
	if a.Status == models.StatusSubmitting {
		return apperr.New(apperr.KindConflict, "This application is being submitted right now; wait for the submission to finish or fail before changing it.")
	}
	return nil
}

// Path is the address of an application's page.
func Path(id uuid.UUID) string { return "/applications/" + id.String() }
