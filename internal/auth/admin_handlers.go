package auth

import (
	"errors"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/httpx"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/view"
)

type usersPage struct {
	Users []models.User
	Form  NewUser
	// Errors of the create form, by field.
	Errors apperr.FieldErrors
	// Shown once after creating a user or resetting a password.
	IssuedPassword *issuedPassword
	// Invite keeps the "send an invitation" choice after a refused form.
	Invite bool
	// Pending holds, for each invited user who has not chosen a password
	// yet, when their newest link expires.
	Pending map[uuid.UUID]time.Time
	// Now is the time the page is drawn (an invitation expired or not).
	Now time.Time
	// Problem is a refused action's message, shown above the list.
	Problem string
}

type issuedPassword struct {
	Email    string
	Password string
}

// ListUsers renders the user admin page.
func (h *Handlers) ListUsers(c echo.Context) error {
	return h.renderUsers(c, http.StatusOK, usersPage{Form: NewUser{Role: models.RoleSalesRep}})
}

// CreateUser creates a user who either gets an invitation e-mail to choose a
// password, or a generated password shown once to the admin.
func (h *Handlers) CreateUser(c echo.Context) error {
	in := NewUser{Email: c.FormValue("email"), Name: c.FormValue("name"), Role: models.Role(c.FormValue("role"))}
	if c.FormValue("invite") == "email" {
		return h.inviteUser(c, in)
	}
	u, password, err := h.service.CreateUserBy(c.Request().Context(), view.CurrentUser(c), in)
	var verr *apperr.ValidationError
	if errors.As(err, &verr) {
		return h.renderUsers(c, http.StatusUnprocessableEntity, usersPage{Form: in, Errors: verr.Fields})
	}
	if err != nil {
		return err
	}
	return h.renderUsers(c, http.StatusOK, usersPage{
		Form:           NewUser{Role: models.RoleSalesRep},
		IssuedPassword: &issuedPassword{Email: u.Email, Password: password},
	})
}

// DeactivateUser ends a user's access and sessions at once.
func (h *Handlers) DeactivateUser(c echo.Context) error {
	return h.setActive(c, false, "User deactivated; their sessions have ended.")
}

// ReactivateUser lets a deactivated user sign in again.
func (h *Handlers) ReactivateUser(c echo.Context) error {
	return h.setActive(c, true, "User reactivated.")
}

func (h *Handlers) setActive(c echo.Context, active bool, message string) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return apperr.New(apperr.KindNotFound, "No such user.")
	}
	if err := h.service.SetActive(c.Request().Context(), view.CurrentUser(c), id, active); err != nil {
		return h.refused(c, err)
	}
	h.views.Flash(c, "success", message)
	return afterUserAction(c, &models.User{ID: id})
}

// ResetUserPassword issues a new generated password, shown once.
func (h *Handlers) ResetUserPassword(c echo.Context) error {
	ctx := c.Request().Context()
	u, err := h.userOfPath(c)
	if err != nil {
		return err
	}
	password, err := h.service.ResetPassword(ctx, view.CurrentUser(c), u.ID)
	if err != nil {
		return err
	}
	return h.renderUsers(c, http.StatusOK, usersPage{
		Form:           NewUser{Role: models.RoleSalesRep},
		IssuedPassword: &issuedPassword{Email: u.Email, Password: password},
	})
}

// ResendInvitation e-mails a fresh invitation link to a person who has not
// accepted theirs (it expired, or was lost).
func (h *Handlers) ResendInvitation(c echo.Context) error {
	ctx := c.Request().Context()
	u, err := h.userOfPath(c)
	if err != nil {
		return err
	}
	if err := h.service.ResendInvitation(ctx, view.CurrentUser(c), u); err != nil {
		return h.refused(c, err)
	}
	h.views.Flash(c, "success", "A new invitation was e-mailed to "+u.Email+"; the link works for 72 hours.")
	return afterUserAction(c, u)
}

// refused answers a refused action on a user with the users page and the
// reason above the list (a conflict is 409, but a page a person can read).
func (h *Handlers) refused(c echo.Context, err error) error {
	var aerr *apperr.Error
	if !errors.As(err, &aerr) || aerr.Kind != apperr.KindConflict {
		return err
	}
	return h.renderUsers(c, http.StatusConflict, usersPage{Form: NewUser{Role: models.RoleSalesRep}, Problem: aerr.Message})
}

func (h *Handlers) renderUsers(c echo.Context, status int, page usersPage) error {
	users, err := h.service.Users().List(c.Request().Context())
	if err != nil {
		return err
	}
	if page.Pending, err = h.service.PendingInvitations(c.Request().Context()); err != nil {
		return err
	}
	page.Users, page.Now = users, h.service.now()
	return h.views.Page(c, status, "admin/users", "Users", page)
}

func (h *Handlers) inviteUser(c echo.Context, in NewUser) error {
	ctx := c.Request().Context()
	actor := view.CurrentUser(c)
	u, err := h.service.Invite(ctx, actor, in)
	var verr *apperr.ValidationError
	if errors.As(err, &verr) {
		return h.renderUsers(c, http.StatusUnprocessableEntity, usersPage{Form: in, Errors: verr.Fields, Invite: true})
	}
	if err != nil {
		return err
	}
	h.views.Flash(c, "success", "Invitation e-mailed to "+u.Email+"; the link works for 72 hours. (Without an SMTP server it waits in the Outbox.)")
	return c.Redirect(http.StatusSeeOther, "/admin/users")
}

// ShowInvitation lets an invited user choose a password.
func (h *Handlers) ShowInvitation(c echo.Context) error {
	u, err := h.service.InvitedUser(c.Request().Context(), c.Param("token"))
	if err != nil {
		return err
	}
	return h.views.Page(c, http.StatusOK, "auth/invitation", "Choose your password", invitationPage{Email: u.Email})
}

// AcceptInvitation sets the invited user's password and signs them in.
func (h *Handlers) AcceptInvitation(c echo.Context) error {
	u, err := h.service.AcceptInvitation(c.Request().Context(), c.Param("token"), c.FormValue("new_password"), c.FormValue("confirm_password"))
	var verr *apperr.ValidationError
	if errors.As(err, &verr) {
		invited, lerr := h.service.InvitedUser(c.Request().Context(), c.Param("token"))
		if lerr != nil {
			return lerr
		}
		return h.views.Page(c, http.StatusUnprocessableEntity, "auth/invitation", "Choose your password", invitationPage{Email: invited.Email, Errors: verr.Fields})
	}
	if err != nil {
		return err
	}
	h.views.Flash(c, "success", "Welcome! Your password is set.")
	return h.passwordAccepted(c, u, "/")
}

type invitationPage struct {
	Email  string
	Errors apperr.FieldErrors
}

// userOfPath loads the user named by the path's id; a malformed id is no such user.
func (h *Handlers) userOfPath(c echo.Context) (*models.User, error) {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return nil, apperr.New(apperr.KindNotFound, "No such user.")
	}
	return h.service.Users().ByID(c.Request().Context(), id)
}
