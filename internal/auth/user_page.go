package auth

import (
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/view"
)

// userPage is an admin's page of one user: the account, what may be done to it, and
// its audit trail.
type userPage struct {
	Person *models.User
	// Self says the page is the viewer's own account (no role change, no deactivation).
	Self bool
	// Pending, when not zero, is when the person's newest invitation link expires
	// (they never chose a password); Now tells whether it has.
	Pending, Now time.Time
	Roles        []models.Role
	History      []audit.AccountEntry
	Errors       apperr.FieldErrors
	Problem      string
}

// ShowUser renders the admin's page of one user (GET /admin/users/:id).
func (h *Handlers) ShowUser(c echo.Context) error {
	return h.renderUser(c, http.StatusOK, userPage{})
}

// SetUserRole changes a staff account's role (POST /admin/users/:id/role).
func (h *Handlers) SetUserRole(c echo.Context) error {
	u, err := h.userOfPath(c)
	if err != nil {
		return err
	}
	err = h.service.SetRole(c.Request().Context(), view.CurrentUser(c), u.ID, models.Role(c.FormValue("role")))
	if fields, ok := apperr.FieldsOf(err); ok {
		return h.renderUser(c, http.StatusUnprocessableEntity, userPage{Errors: fields})
	}
	var aerr *apperr.Error
	if errors.As(err, &aerr) && aerr.Kind == apperr.KindConflict {
		return h.renderUser(c, http.StatusConflict, userPage{Problem: aerr.Message})
	}
	if err != nil {
		return err
	}
	h.views.Flash(c, "success", "Role changed; their sessions have ended, and their next sign-in applies it.")
	return c.Redirect(http.StatusSeeOther, userPath(u))
}

func (h *Handlers) renderUser(c echo.Context, status int, page userPage) error {
	u, err := h.userOfPath(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	pending, err := h.service.PendingInvitations(ctx)
	if err != nil {
		return err
	}
	if page.History, err = h.service.AccountHistory(ctx, u.ID); err != nil {
		return err
	}
	page.Person, page.Self, page.Pending, page.Now = u, u.ID == view.CurrentUser(c).ID, pending[u.ID], h.service.now()
	page.Roles = []models.Role{models.RoleSalesRep, models.RoleAdmin}
	return h.views.Page(c, status, "admin/user", u.DisplayName(), page)
}

// userPath is the admin's page of u.
func userPath(u *models.User) string { return "/admin/users/" + u.ID.String() }

// afterUserAction answers an action on a user with the page it was taken from: the
// user's own page when its form says so, else the list.
func afterUserAction(c echo.Context, u *models.User) error {
	if c.FormValue("from") == "user" {
		return c.Redirect(http.StatusSeeOther, userPath(u))
	}
	return c.Redirect(http.StatusSeeOther, "/admin/users")
}
