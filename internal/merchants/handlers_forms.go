package merchants

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/httpx"
	"github.com/payportal/portal/internal/view"
)

// SetPayments enters or replaces the payment account (admins).
func (h *Handlers) SetPayments(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	in := PaymentInput{OID: c.FormValue("oid"), Token: c.FormValue("token")}
	err = h.service.SetPaymentAccount(c.Request().Context(), view.CurrentUser(c), id, in)
	if err != nil {
		return h.refused(c, err, "payments", map[string]string{"oid": in.OID})
	}
	return h.done(c, "success", "Payment account saved. The token is stored encrypted and shown only by its last four characters; test the connection to check it.", "payments")
}

// SetTerminalKey enters or replaces the terminal cloud API key (admins).
func (h *Handlers) SetTerminalKey(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	err = h.service.SetTerminalKey(c.Request().Context(), view.CurrentUser(c), id, TerminalKeyInput{APIKey: c.FormValue("api_key")})
	if err != nil {
		return h.refused(c, err, "terminal-key", nil)
	}
	return h.done(c, "success", "API key saved. It is stored encrypted and shown only by its last four characters; test the connection to check it.", "terminals")
}

// AddLocation adds a terminal location (admins).
func (h *Handlers) AddLocation(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	in := LocationInput{LocationID: c.FormValue("location_id"), Name: c.FormValue("location_name"), TestMode: c.FormValue("test_mode") != ""}
	if err := h.service.AddLocation(c.Request().Context(), view.CurrentUser(c), id, in); err != nil {
		values := map[string]string{"location_id": in.LocationID, "location_name": in.Name}
		if in.TestMode {
			values["test_mode"] = "on"
		}
		return h.refused(c, err, "location", values)
	}
	return h.done(c, "success", "Location added.", "terminals")
}

// UpdateLocation renames a location or changes its test mode (admins).
func (h *Handlers) UpdateLocation(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	loc, err := httpx.UUIDParam(c, "loc")
	if err != nil {
		return err
	}
	in := LocationInput{Name: c.FormValue("location_name"), TestMode: c.FormValue("test_mode") != ""}
	if err := h.service.UpdateLocation(c.Request().Context(), view.CurrentUser(c), id, loc, in); err != nil {
		return h.refused(c, err, "location-"+loc.String(), map[string]string{"location_name": in.Name})
	}
	return h.done(c, "success", "Location saved.", "terminals")
}

// RemoveLocation retires a location (admins).
func (h *Handlers) RemoveLocation(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	loc, err := httpx.UUIDParam(c, "loc")
	if err != nil {
		return err
	}
	if err := h.service.RemoveLocation(c.Request().Context(), view.CurrentUser(c), id, loc); err != nil {
		return err
	}
	return h.done(c, "success", "Location removed.", "terminals")
}

// TestPayments runs "test connection" on the payment account.
func (h *Handlers) TestPayments(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	res, err := h.service.TestPayments(c.Request().Context(), view.CurrentUser(c), id)
	if err != nil {
		return err
	}
	return h.done(c, outcomeKind(res.OK), res.What+": "+res.Message, "payments")
}

// TestTerminals runs "test connection" at every location.
func (h *Handlers) TestTerminals(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	results, err := h.service.TestTerminals(c.Request().Context(), view.CurrentUser(c), id)
	if err != nil {
		return err
	}
	for _, r := range results {
		h.views.Flash(c, outcomeKind(r.OK), r.What+": "+r.Message)
	}
	return c.Redirect(http.StatusSeeOther, "/merchants/"+c.Param("id")+"#terminals")
}

// FetchAgain queues the sandbox's hand-over again (admins, sandbox mode).
func (h *Handlers) FetchAgain(c echo.Context) error {
	id, err := httpx.UUIDParam(c, "id")
	if err != nil {
		return err
	}
	if err := h.service.FetchAgain(c.Request().Context(), view.CurrentUser(c), id); err != nil {
		if errors.Is(err, errNoSandbox) {
			return apperr.New(apperr.KindConflict, "Credentials are fetched only from a sandbox; this portal talks to the processor itself.")
		}
		return err
	}
	return h.done(c, "info", "Fetching the credentials from the sandbox; reload the page in a moment.", "credentials")
}

func outcomeKind(ok bool) string {
	if ok {
		return "success"
	}
	return "error"
}
