package merchants

import (
	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/httpx"
	"github.com/payportal/portal/internal/view"
)

// bindPermissions reads the ticked permissions; an unknown one is refused.
func bindPermissions(c echo.Context) (Permissions, error) {
	params, err := c.FormParams()
	if err != nil {
		return nil, apperr.Wrap(apperr.KindInvalid, err, "The form could not be read; reload the page and try again.")
	}
	var out Permissions
	for _, v := range params["permissions"] {
		out = append(out, Permission(v))
	}
	return out, nil // checked by the service, after the user's rights
}

// Invite gives a person access to the merchant (admins, owning rep).
func (h *Handlers) Invite(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	in := MemberInput{Email: c.FormValue("email"), Name: c.FormValue("name")}
	values := map[string]string{"email": in.Email, "name": in.Name}
	if in.Permissions, err = bindPermissions(c); err != nil {
		return h.refused(c, err, "invite", values)
	}
	for _, p := range in.Permissions {
		values["perm-"+string(p)] = "on"
	}
	res, err := h.service.Invite(c.Request().Context(), view.CurrentUser(c), id, in)
	if err != nil {
		return h.refused(c, err, "invite", values)
	}
	msg := "Invitation e-mailed to " + res.User.Email + "; the link works for 72 hours. (Without an SMTP server it waits in the Outbox.)"
	if !res.Invited {
		msg = res.User.Email + " has access now; they were told by e-mail."
	}
	return h.done(c, "success", msg, "people")
}

// SetPermissions changes a member's permissions (admins, owning rep).
func (h *Handlers) SetPermissions(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	userID, err := httpx.UUIDParam(c, "user")
	if err != nil {
		return err
	}
	perms, err := bindPermissions(c)
	if err != nil {
		return h.refused(c, err, "member-"+userID.String(), nil)
	}
	if err := h.service.SetPermissions(c.Request().Context(), view.CurrentUser(c), id, userID, perms); err != nil {
		return h.refused(c, err, "member-"+userID.String(), nil)
	}
	msg := "Permissions saved."
	if perms.NeedMFA() {
		msg += " They move money, so this person signs in with two-step sign-in (set up at their next sign-in if not yet on)."
	}
	return h.done(c, "success", msg, "people")
}

// RemoveMember ends a person's access (admins, owning rep).
func (h *Handlers) RemoveMember(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	userID, err := httpx.UUIDParam(c, "user")
	if err != nil {
		return err
	}
	if err := h.service.RemoveMember(c.Request().Context(), view.CurrentUser(c), id, userID); err != nil {
		return err
	}
	return h.done(c, "success", "Access removed; it ends at the person's next click.", "people")
}

// Suspend stops the merchant's payments and terminals (admins).
func (h *Handlers) Suspend(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	reason := c.FormValue("reason")
	if err := h.service.Suspend(c.Request().Context(), view.CurrentUser(c), id, reason); err != nil {
		return h.refused(c, err, "suspend", map[string]string{"reason": reason})
	}
	return h.done(c, "success", "Payments and terminals of this merchant are suspended.", "status")
}

// Resume allows them again (admins).
func (h *Handlers) Resume(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	if err := h.service.Resume(c.Request().Context(), view.CurrentUser(c), id); err != nil {
		return err
	}
	return h.done(c, "success", "Payments and terminals of this merchant are allowed again.", "status")
}

// ResolveAlert records an admin's decision about an alert.
func (h *Handlers) ResolveAlert(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	decision, note := c.FormValue("decision"), c.FormValue("note")
	if err := h.service.ResolveAlert(c.Request().Context(), view.CurrentUser(c), id, decision, note); err != nil {
		return h.refused(c, err, "alert", map[string]string{"note": note})
	}
	return h.done(c, "success", "Decision recorded.", "status")
}
