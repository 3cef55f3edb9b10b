package auth

import (
	"errors"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/view"
)

// mfaPendingLifetime is how long a checked password waits for its second
// factor before the sign-in starts over.
const mfaPendingLifetime = 10 * time.Minute

// passwordAccepted continues a sign-in whose password (or invitation) was
// accepted: straight in when no second factor applies, otherwise on to the
// code page, or to set-up when the role requires MFA and none is set up.
func (h *Handlers) passwordAccepted(c echo.Context, u *models.User, next string) error {
	ctx := c.Request().Context()
	if err := h.adoptBrowserZone(c, u); err != nil {
		return err
	}
	required, err := h.service.MFARequired(ctx, u)
	if err != nil {
		return err
	}
	if !required && !u.MFAEnabled() {
		if err := h.startSession(c, u, false); err != nil {
			return err
		}
		return c.Redirect(http.StatusSeeOther, next)
	}
	sm := h.sessions
	if err := sm.RenewToken(ctx); err != nil {
		return err
	}
	sm.Remove(ctx, sessionUserID)
	sm.Put(ctx, sessionMFAUserID, u.ID.String())
	sm.Put(ctx, sessionMFAVersion, u.SessionVersion)
	sm.Put(ctx, sessionMFAStarted, h.service.now().Unix())
	sm.Put(ctx, sessionMFANext, next)
	if u.MFAEnabled() {
		return c.Redirect(http.StatusSeeOther, "/login/mfa")
	}
	return c.Redirect(http.StatusSeeOther, "/login/mfa/setup")
}

// startSession signs u in fully. strict (MFA in use or required) gives the
// session the 15-minute idle limit.
func (h *Handlers) startSession(c echo.Context, u *models.User, strict bool) error {
	if err := h.adoptBrowserZone(c, u); err != nil {
		return err
	}
	idle := h.idle
	if strict || u.MFAEnabled() {
		idle = min(idle, StrictIdleTimeout)
	}
	return StartSession(c, h.sessions, u, idle, h.service.now())
}

// pendingUser returns the user whose password was checked on this session
// and who still owes the second factor; nil when there is none (or it went
// stale, or the account changed meanwhile).
func (h *Handlers) pendingUser(c echo.Context) (*models.User, string, error) {
	ctx := c.Request().Context()
	id, err := uuid.Parse(h.sessions.GetString(ctx, sessionMFAUserID))
	if err != nil {
		return nil, "", nil
	}
	started := time.Unix(h.sessions.GetInt64(ctx, sessionMFAStarted), 0)
	if h.service.now().Sub(started) > mfaPendingLifetime {
		return nil, "", nil
	}
	u, err := h.service.Users().ByID(ctx, id)
	if errors.Is(err, models.ErrNotFound) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	if !u.Active || u.SessionVersion != h.sessions.GetInt(ctx, sessionMFAVersion) {
		return nil, "", nil
	}
	return u, safeNext(h.sessions.GetString(ctx, sessionMFANext)), nil
}

type mfaPage struct {
	Error string
	// Enrolment is set on the set-up pages.
	Enrolment *Enrolment
	// Action is where the form posts.
	Action string
	// Required says the role requires MFA (set-up cannot be skipped).
	Required bool
}

// ShowSecondFactor asks for the code of the authenticator app.
func (h *Handlers) ShowSecondFactor(c echo.Context) error {
	u, _, err := h.pendingUser(c)
	if err != nil {
		return err
	}
	if u == nil || !u.MFAEnabled() {
		return c.Redirect(http.StatusSeeOther, "/login")
	}
	return h.views.Page(c, http.StatusOK, "auth/mfa", "Two-step sign-in", mfaPage{Action: "/login/mfa"})
}

// SecondFactor checks the code and completes the sign-in.
func (h *Handlers) SecondFactor(c echo.Context) error {
	u, next, err := h.pendingUser(c)
	if err != nil {
		return err
	}
	if u == nil || !u.MFAEnabled() {
		return c.Redirect(http.StatusSeeOther, "/login")
	}
	err = h.service.VerifySecondFactor(c.Request().Context(), u, c.FormValue("code"), c.RealIP())
	if status, msg, ok := codeRefusal(c, err); ok {
		return h.views.Page(c, status, "auth/mfa", "Two-step sign-in", mfaPage{Action: "/login/mfa", Error: msg})
	}
	if err != nil {
		return err
	}
	if err := h.startSession(c, u, true); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, next)
}

// ShowMFASetup shows the QR code and secret to add to an authenticator app,
// during sign-in (role requires MFA) or from the account page.
func (h *Handlers) ShowMFASetup(c echo.Context) error {
	u, action, required, err := h.setupSubject(c)
	if err != nil || u == nil {
		return err
	}
	enr, err := h.service.BeginEnrolment(c.Request().Context(), u)
	if err != nil {
		return err
	}
	return h.views.Page(c, http.StatusOK, "auth/mfa_setup", "Set up two-step sign-in", mfaPage{Enrolment: enr, Action: action, Required: required})
}

// ConfirmMFASetup checks the first code, turns MFA on and shows the recovery
// codes once.
func (h *Handlers) ConfirmMFASetup(c echo.Context) error {
	u, action, required, err := h.setupSubject(c)
	if err != nil || u == nil {
		return err
	}
	ctx := c.Request().Context()
	codes, err := h.service.ConfirmEnrolment(ctx, u, c.FormValue("code"), c.RealIP())
	if status, msg, ok := codeRefusal(c, err); ok {
		enr, eerr := h.service.BeginEnrolment(ctx, u)
		if eerr != nil {
			return eerr
		}
		return h.views.Page(c, status, "auth/mfa_setup", "Set up two-step sign-in", mfaPage{Enrolment: enr, Action: action, Required: required, Error: msg})
	}
	if err != nil {
		return err
	}
	fresh, err := h.service.Users().ByID(ctx, u.ID)
	if err != nil {
		return err
	}
	next := "/"
	if view.CurrentUser(c) == nil {
		_, next, _ = h.pendingUser(c)
	}
	if err := h.startSession(c, fresh, true); err != nil {
		return err
	}
	return h.showRecoveryCodes(c, codes, next)
}

// setupSubject is the user setting up MFA: the signed-in user (account
// page) or the one half-way through sign-in. It answers the request itself
// (a redirect) when there is none.
func (h *Handlers) setupSubject(c echo.Context) (*models.User, string, bool, error) {
	if u := view.CurrentUser(c); u != nil {
		required, err := h.service.MFARequired(c.Request().Context(), u)
		return u, "/account/security/setup", required, err
	}
	u, _, err := h.pendingUser(c)
	if err != nil {
		return nil, "", false, err
	}
	if u == nil || u.MFAEnabled() {
		return nil, "", false, c.Redirect(http.StatusSeeOther, "/login")
	}
	return u, "/login/mfa/setup", true, nil
}

type recoveryPage struct {
	Codes []string
	Next  string
}

func (h *Handlers) showRecoveryCodes(c echo.Context, codes []string, next string) error {
	c.Response().Header().Set("Cache-Control", "no-store")
	return h.views.Page(c, http.StatusOK, "auth/recovery_codes", "Your recovery codes", recoveryPage{Codes: codes, Next: next})
}

type securityPage struct {
	MFAEnabled    bool
	MFARequired   bool
	CodesLeft     int64
	Error         string
	ErrorFor      string
	IdleLimitMins int
}

// ShowSecurity is the account's security page: two-step sign-in and
// recovery codes.
func (h *Handlers) ShowSecurity(c echo.Context) error {
	return h.renderSecurity(c, http.StatusOK, "", "")
}

func (h *Handlers) renderSecurity(c echo.Context, status int, errFor, msg string) error {
	u := view.CurrentUser(c)
	ctx := c.Request().Context()
	required, err := h.service.MFARequired(ctx, u)
	if err != nil {
		return err
	}
	left, err := h.service.Users().RecoveryCodesLeft(ctx, u.ID)
	if err != nil {
		return err
	}
	idle := int(time.Duration(h.sessions.GetInt(ctx, sessionIdle)) * time.Second / time.Minute)
	return h.views.Page(c, status, "auth/security", "Security", securityPage{
		MFAEnabled: u.MFAEnabled(), MFARequired: required, CodesLeft: left, Error: msg, ErrorFor: errFor, IdleLimitMins: idle,
	})
}

// RegenerateRecoveryCodes replaces the signed-in user's recovery codes.
func (h *Handlers) RegenerateRecoveryCodes(c echo.Context) error {
	codes, err := h.service.RegenerateRecoveryCodes(c.Request().Context(), view.CurrentUser(c), c.FormValue("code"), c.RealIP())
	if status, msg, ok := codeRefusal(c, err); ok {
		return h.renderSecurity(c, status, "regenerate", msg)
	}
	if err != nil {
		return err
	}
	return h.showRecoveryCodes(c, codes, "/account/security")
}

// TurnOffMFA removes the second factor of a user whose role does not need it.
func (h *Handlers) TurnOffMFA(c echo.Context) error {
	u := view.CurrentUser(c)
	err := h.service.TurnOffMFA(c.Request().Context(), u, c.FormValue("code"), c.RealIP())
	if status, msg, ok := codeRefusal(c, err); ok {
		return h.renderSecurity(c, status, "turn-off", msg)
	}
	if err != nil {
		return err
	}
	// Turning it off ended every session: sign in again on this one.
	fresh, err := h.service.Users().ByID(c.Request().Context(), u.ID)
	if err != nil {
		return err
	}
	if err := h.startSession(c, fresh, false); err != nil {
		return err
	}
	h.views.Flash(c, "success", "Two-step sign-in is off. Other sessions were signed out.")
	return c.Redirect(http.StatusSeeOther, "/account/security")
}

// ResetUserMFA lets an admin remove a user's second factor (a lost phone).
func (h *Handlers) ResetUserMFA(c echo.Context) error {
	u, err := h.userOfPath(c)
	if err != nil {
		return err
	}
	if err := h.service.ResetMFA(c.Request().Context(), view.CurrentUser(c), u.ID); err != nil {
		return err
	}
	h.views.Flash(c, "success", "Two-step sign-in was reset; the user's sessions have ended and they set it up again at their next sign-in.")
	return afterUserAction(c, u)
}

// codeRefusal maps a refused code to the status and message shown on the
// form: a wrong code (422), or too many wrong codes (429, Retry-After).
func codeRefusal(c echo.Context, err error) (int, string, bool) {
	var throttled *ThrottledError
	switch {
	case err == nil:
		return 0, "", false
	case errors.As(err, &throttled):
		c.Response().Header().Set("Retry-After", retryAfterSeconds(throttled))
		return http.StatusTooManyRequests, "Too many wrong codes. " + throttled.Error()[len("Too many failed sign-in attempts. "):], true
	case errors.Is(err, ErrWrongCode):
		return http.StatusUnprocessableEntity, ErrWrongCode.Error(), true
	case apperr.KindOf(err) == apperr.KindConflict:
		return http.StatusConflict, err.Error(), true
	}
	return 0, "", false
}
