package auth

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/view"
)

// Handlers serves sign-in, sign-out, invitations and the user's own password page.
type Handlers struct {
	service  *Service
	sessions *scs.SessionManager
	views    *view.Renderer
	// idle is the idle limit of sessions of people who need no MFA.
	idle time.Duration
}

// NewHandlers returns the sign-in and user admin handlers. idle is the idle
// limit of sessions of people who need no MFA (those who do get
// StrictIdleTimeout at most).
func NewHandlers(service *Service, sessions *scs.SessionManager, views *view.Renderer, idle time.Duration) *Handlers {
	return &Handlers{service: service, sessions: sessions, views: views, idle: idle}
}

type loginPage struct {
	Email string
	Next  string
	Error string
}

// ShowLogin renders the sign-in form.
func (h *Handlers) ShowLogin(c echo.Context) error {
	if view.CurrentUser(c) != nil {
		return c.Redirect(http.StatusSeeOther, "/")
	}
	return h.views.Page(c, http.StatusOK, "auth/login", "Sign in", loginPage{Next: safeNext(c.QueryParam("next"))})
}

// Login checks the credentials and starts a session.
func (h *Handlers) Login(c echo.Context) error {
	email := strings.TrimSpace(c.FormValue("email"))
	page := loginPage{Email: email, Next: safeNext(c.FormValue("next"))}
	user, err := h.service.Authenticate(c.Request().Context(), email, c.FormValue("password"), c.RealIP())
	var throttled *ThrottledError
	var busy *ErrBusy
	if fields, invalid := apperr.FieldsOf(err); invalid {
		page.Error = fields["email"]
		return h.views.Page(c, http.StatusUnprocessableEntity, "auth/login", "Sign in", page)
	}
	switch {
	case errors.As(err, &busy):
		page.Error = busy.Error()
		c.Response().Header().Set("Retry-After", strconv.Itoa(int(busy.RetryAfter().Seconds())))
		status := http.StatusServiceUnavailable
		if busy.PerAddress {
			status = http.StatusTooManyRequests
		}
		return h.views.Page(c, status, "auth/login", "Sign in", page)
	case errors.As(err, &throttled):
		page.Error = throttled.Error()
		c.Response().Header().Set("Retry-After", retryAfterSeconds(throttled))
		return h.views.Page(c, http.StatusTooManyRequests, "auth/login", "Sign in", page)
	case errors.Is(err, ErrInvalidCredentials):
		page.Error = "The e-mail address or password is incorrect."
		return h.views.Page(c, http.StatusUnauthorized, "auth/login", "Sign in", page)
	case err != nil:
		return err
	}
	return h.passwordAccepted(c, user, page.Next)
}

// Logout ends the session.
func (h *Handlers) Logout(c echo.Context) error {
	if err := EndSession(c, h.sessions); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/login")
}

type passwordPage struct {
	Forced bool
	Errors apperr.FieldErrors
}

// ShowChangePassword renders the form to change one's own password.
func (h *Handlers) ShowChangePassword(c echo.Context) error {
	u := view.CurrentUser(c)
	return h.views.Page(c, http.StatusOK, "auth/password", "Change password", passwordPage{Forced: u.MustChangePassword})
}

// ChangePassword replaces the signed-in user's password and keeps them signed in
// on this session only.
func (h *Handlers) ChangePassword(c echo.Context) error {
	u := view.CurrentUser(c)
	err := h.service.ChangePassword(c.Request().Context(), u, c.FormValue("current_password"), c.FormValue("new_password"), c.FormValue("confirm_password"))
	var verr *apperr.ValidationError
	if errors.As(err, &verr) {
		return h.views.Page(c, http.StatusUnprocessableEntity, "auth/password", "Change password", passwordPage{Forced: u.MustChangePassword, Errors: verr.Fields})
	}
	if err != nil {
		return err
	}
	// The change bumped the session version; carry this session over to it.
	fresh, err := h.service.Users().ByID(c.Request().Context(), u.ID)
	if err != nil {
		return err
	}
	required, err := h.service.MFARequired(c.Request().Context(), fresh)
	if err != nil {
		return err
	}
	if err := h.startSession(c, fresh, required); err != nil {
		return err
	}
	h.views.Flash(c, "success", "Your password was changed. Other sessions were signed out.")
	return c.Redirect(http.StatusSeeOther, "/")
}

// safeNext keeps post-sign-in redirects on this site.
func safeNext(next string) string {
	u, err := url.Parse(next)
	if next == "" || err != nil || u.IsAbs() || u.Host != "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return "/"
	}
	return next
}

func retryAfterSeconds(e *ThrottledError) string {
	return strconv.Itoa(int(e.RetryAfter.Seconds()) + 1)
}
