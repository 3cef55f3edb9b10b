package applications

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/models"
)

// ErrLocked is returned by every editing use case once the hand-off link exists:
// from then on only the merchant may change values, upstream.
var ErrLocked = apperr.New(apperr.KindConflict, "This application has been handed off to the merchant and can no longer be changed here.")

// LoadVisible loads an application the user may see: admins see every one, a
// sales rep only those they own. Soft-deleted applications are hidden. Anything
// the user may not see is reported as models.ErrNotFound, so that a rep cannot
// even learn that another rep's application exists.
func LoadVisible(ctx context.Context, db *gorm.DB, u *models.User, id uuid.UUID) (*models.Application, error) {
	q := db.WithContext(ctx).Where("id = ? AND deleted_at IS NULL", id)
	if !u.IsAdmin() {
		q = q.Where("owner_id = ?", u.ID)
	}
	var a models.Application
	if err := q.Take(&a).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil, models.ErrNotFound
		}
		return nil, err
	}
	return &a, nil
}

// LoadEditable is LoadVisible for changes: it also refuses a locked application
// (409) and one that is being pushed upstream right now.
func LoadEditable(ctx context.Context, db *gorm.DB, u *models.User, id uuid.UUID) (*models.Application, error) {
	a, err := LoadVisible(ctx, db, u, id)
	if err != nil {
		return nil, err
	}
	if err := CheckEditable(a); err != nil {
		return nil, err
	}
	return a, nil
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
