package apikeys

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/httpx"
	"github.com/payportal/portal/internal/view"
)

// Handlers serves the admins' pages of API keys.
type Handlers struct {
	service *Service
	views   *view.Renderer
}

// NewHandlers returns the API keys' pages.
func NewHandlers(service *Service, views *view.Renderer) *Handlers {
	return &Handlers{service: service, views: views}
}

// keysPage is the data of the API keys page.
type keysPage struct {
	Keys []Key
	Reps []Rep
	Form NewKey
	// Errors of the create form, by field.
	Errors apperr.FieldErrors
	// Issued is a key just created, with its secret shown this once.
	Issued *issuedKey
}

type issuedKey struct {
	Key    *Key
	Secret string
}

// List shows every key and the form to create one.
func (h *Handlers) List(c echo.Context) error {
	return h.render(c, http.StatusOK, keysPage{Form: NewKey{Scope: ScopeRep, Access: AccessRead}})
}

// Create makes a key and shows its secret once.
func (h *Handlers) Create(c echo.Context) error {
	in := NewKey{Name: c.FormValue("name"), Scope: ScopeKind(c.FormValue("scope")), RepID: c.FormValue("rep_id"), Access: Access(c.FormValue("access"))}
	k, secret, err := h.service.Create(c.Request().Context(), view.CurrentUser(c), in)
	var verr *apperr.ValidationError
	if errors.As(err, &verr) {
		return h.render(c, http.StatusUnprocessableEntity, keysPage{Form: in, Errors: verr.Fields})
	}
	if err != nil {
		return err
	}
	// The secret is on this page only: never cached, never in a flash or the session.
	c.Response().Header().Set("Cache-Control", "no-store")
	return h.render(c, http.StatusOK, keysPage{Form: NewKey{Scope: ScopeRep, Access: AccessRead}, Issued: &issuedKey{Key: k, Secret: secret}})
}

// Revoke stops a key at once.
func (h *Handlers) Revoke(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	k, err := h.service.Revoke(c.Request().Context(), view.CurrentUser(c), id)
	if err != nil {
		return err
	}
	h.views.Flash(c, "success", "Key “"+k.Name+"” revoked: requests with it are refused from now on.")
	return c.Redirect(http.StatusSeeOther, "/admin/api-keys")
}

func (h *Handlers) render(c echo.Context, status int, page keysPage) error {
	ctx := c.Request().Context()
	var err error
	if page.Keys, err = h.service.List(ctx); err != nil {
		return err
	}
	if page.Reps, err = h.service.Reps(ctx); err != nil {
		return err
	}
	if page.Errors == nil {
		page.Errors = apperr.FieldErrors{}
	}
	return h.views.Page(c, status, "admin/api_keys", "API keys", page)
}
