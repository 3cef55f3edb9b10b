package terminals

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/httpx"
	"github.com/payportal/portal/internal/view"
)

// Handlers serve a merchant's terminals pages.
type Handlers struct {
	svc   *Service
	views *view.Renderer
}

// NewHandlers returns the handlers of the room.
func NewHandlers(svc *Service, views *view.Renderer) *Handlers {
	return &Handlers{svc: svc, views: views}
}

// Path is the address of a merchant's terminals page.
func Path(merchantID uuid.UUID) string { return "/merchants/" + merchantID.String() + "/terminals" }

// LaunchPath is the address of a launch's page.
func LaunchPath(merchantID, id uuid.UUID) string {
	return Path(merchantID) + "/launches/" + id.String()
}

// Devices shows the merchant's locations and devices
// (GET /merchants/:id/terminals).
func (h *Handlers) Devices(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	v, err := h.svc.Devices(c.Request().Context(), view.CurrentUser(c), id)
	if err != nil {
		return err
	}
	return h.views.Page(c, http.StatusOK, "terminals/devices", "Terminals of "+v.Access.Merchant.Name, v)
}

// Refresh downloads a location's devices again
// (POST /merchants/:id/terminals/refresh, location).
func (h *Handlers) Refresh(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	err = h.svc.Refresh(c.Request().Context(), view.CurrentUser(c), id, c.FormValue("location"))
	switch {
	case err == nil:
		h.views.Flash(c, "success", "Devices downloaded from the terminal cloud.")
	case apperr.KindOf(err) == apperr.KindUnavailable:
		h.views.Flash(c, "error", apperr.MessageOf(err))
	default:
		return err
	}
	return c.Redirect(http.StatusSeeOther, Path(id))
}

// NewLaunch shows the launch form of a kind on a device
// (GET /merchants/:id/terminals/launch?location=&device=&kind=&original=).
func (h *Handlers) NewLaunch(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	req := LaunchRequest{Kind: c.QueryParam("kind"), LocationID: c.QueryParam("location"), Device: c.QueryParam("device"),
		Original: c.QueryParam("original"), Invoice: c.QueryParam("invoice")}
	v, err := h.svc.Form(c.Request().Context(), view.CurrentUser(c), id, req)
	if err != nil {
		return err
	}
	return h.views.Page(c, http.StatusOK, "terminals/new", v.Kind.Label()+" on "+v.Device.DeviceName, v)
}

// Launch sends a transaction to a terminal (POST /merchants/:id/terminals/launches)
// and goes to its page, which follows it. A refused form comes back with
// every value and a message beside each field at fault (422), or the
// reason the device is busy (409).
func (h *Handlers) Launch(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	var req LaunchRequest
	if err := (&echo.DefaultBinder{}).BindBody(c, &req); err != nil {
		return apperr.New(apperr.KindInvalid, "The form could not be read.")
	}
	ctx, u := c.Request().Context(), view.CurrentUser(c)
	l, err := h.svc.Launch(ctx, u, id, req)
	if err == nil {
		return c.Redirect(http.StatusSeeOther, LaunchPath(id, l.ID))
	}
	fields, invalid := apperr.FieldsOf(err)
	var busy *BusyError
	if !invalid && !errors.As(err, &busy) {
		return err
	}
	v, ferr := h.svc.Form(ctx, u, id, req)
	if ferr != nil {
		return err
	}
	status := http.StatusUnprocessableEntity
	if busy != nil {
		status, v.Problem, v.Busy = http.StatusConflict, busy.Message, busy.Launch
		v.Request.FormToken = uuid.NewString()
	} else {
		v.Errors = fields
	}
	return h.views.Page(c, status, "terminals/new", v.Kind.Label()+" on "+v.Device.DeviceName, v)
}

// Show is a launch's page (GET /merchants/:id/terminals/launches/:launch).
func (h *Handlers) Show(c echo.Context) error {
	v, err := h.page(c)
	if err != nil {
		return err
	}
	return h.views.Page(c, http.StatusOK, "terminals/launch", v.Launch.Kind.Label()+" on "+v.Launch.DeviceName, v)
}

// Status is the live part of a launch's page, for its poll
// (GET .../launches/:launch/status?seen=). While nothing changed since the
// fingerprint the page holds, it answers 204 and htmx leaves the page as
// it is.
func (h *Handlers) Status(c echo.Context) error {
	v, err := h.page(c)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	if c.QueryParam("seen") == v.Fingerprint() {
		return c.NoContent(http.StatusNoContent)
	}
	return h.views.Fragment(c, http.StatusOK, "terminals/status", v)
}

func (h *Handlers) page(c echo.Context) (*LaunchView, error) {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return nil, err
	}
	launchID, err := httpx.UUIDParam(c, "launch")
	if err != nil {
		return nil, err
	}
	return h.svc.Page(c.Request().Context(), view.CurrentUser(c), id, launchID)
}

// Confirm records what the terminal showed for an unknown launch
// (POST .../launches/:launch/confirm).
func (h *Handlers) Confirm(c echo.Context) error {
	return h.resolve(c, func(id, launchID uuid.UUID) (uuid.UUID, error) {
		var req ConfirmRequest
		if err := (&echo.DefaultBinder{}).BindBody(c, &req); err != nil {
			return uuid.Nil, apperr.New(apperr.KindInvalid, "The form could not be read.")
		}
		l, err := h.svc.Confirm(c.Request().Context(), view.CurrentUser(c), id, launchID, req)
		if err != nil {
			return uuid.Nil, err
		}
		h.views.Flash(c, "success", "Recorded: the terminal showed "+l.State.Label()+".")
		return l.ID, nil
	})
}

// Resend sends an unknown launch again, on the user's explicit word
// (POST .../launches/:launch/resend).
func (h *Handlers) Resend(c echo.Context) error {
	return h.resolve(c, func(id, launchID uuid.UUID) (uuid.UUID, error) {
		var req ResendRequest
		if err := (&echo.DefaultBinder{}).BindBody(c, &req); err != nil {
			return uuid.Nil, apperr.New(apperr.KindInvalid, "The form could not be read.")
		}
		l, err := h.svc.Resend(c.Request().Context(), view.CurrentUser(c), id, launchID, req)
		if err != nil {
			return uuid.Nil, err
		}
		return l.ID, nil
	})
}

// resolve runs an action on a launch's page and goes to the page of the
// launch it returns; a refusal goes back to the launch's page with the
// message.
func (h *Handlers) resolve(c echo.Context, act func(id, launchID uuid.UUID) (uuid.UUID, error)) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	launchID, err := httpx.UUIDParam(c, "launch")
	if err != nil {
		return err
	}
	next, err := act(id, launchID)
	if err != nil {
		switch apperr.KindOf(err) {
		case apperr.KindInvalid, apperr.KindConflict:
			h.views.Flash(c, "error", apperr.MessageOf(err))
			return c.Redirect(http.StatusSeeOther, LaunchPath(id, launchID))
		}
		return err
	}
	return c.Redirect(http.StatusSeeOther, LaunchPath(id, next))
}

// launchFormURL is the address of a launch form.
func launchFormURL(merchantID uuid.UUID, kind Kind, location, device string, original *uuid.UUID) string {
	q := url.Values{"kind": {string(kind)}, "location": {location}, "device": {device}}
	if original != nil {
		q.Set("original", original.String())
	}
	return Path(merchantID) + "/launch?" + q.Encode()
}

// FormURL is the address of the launch form of kind on d.
func (v *DevicesView) FormURL(d *Device, kind Kind) string {
	return launchFormURL(v.Access.Merchant.ID, kind, d.LocationID, d.DeviceName, nil)
}

// LaunchURL is the address of a launch's page.
func (v *DevicesView) LaunchURL(l *Launch) string { return LaunchPath(l.MerchantID, l.ID) }

// Path is the launch page's address.
func (v *LaunchView) Path() string { return LaunchPath(v.Launch.MerchantID, v.Launch.ID) }

// TerminalsPath is the address of the merchant's terminals page.
func (v *LaunchView) TerminalsPath() string { return Path(v.Launch.MerchantID) }

// LaunchURL is the address of another launch's page.
func (v *LaunchView) LaunchURL(l *Launch) string { return LaunchPath(l.MerchantID, l.ID) }

// FormURL is the address of the form of kind acting on this launch (a
// tip, a void, a sale with this saved card), or of the same kind again.
func (v *LaunchView) FormURL(kind Kind) string {
	l := v.Launch
	if kind.NeedsOriginal() {
		return launchFormURL(l.MerchantID, kind, l.LocationID, l.DeviceName, &l.ID)
	}
	return launchFormURL(l.MerchantID, kind, l.LocationID, l.DeviceName, l.OriginalID)
}

// Action is where the launch form posts.
func (v *FormView) Action() string { return Path(v.Access.Merchant.ID) + "/launches" }

// TerminalsPath is the address of the merchant's terminals page.
func (v *FormView) TerminalsPath() string { return Path(v.Access.Merchant.ID) }

// BusyURL is the address of the launch holding the device.
func (v *FormView) BusyURL() string { return LaunchPath(v.Busy.MerchantID, v.Busy.ID) }

// Cents formats cents for the pages.
func (v *FormView) Cents(c int64) string { return FormatCents(c) }
