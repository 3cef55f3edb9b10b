package payments

import (
	"net/http"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/view"
)

// payPage is the data of the virtual terminal's page.
type payPage struct {
	*PayView
	// Tab is the form shown: "card", "ach" or "saved".
	Tab   string
	Card  *CardPaymentForm
	ACH   *ACHPaymentForm
	Saved *SavedPaymentForm
	formProblem
	// Reenter: the card (or account) number was typed and must be typed
	// again, since the page never shows it back.
	Reenter            bool
	AuthorizationWays  any
	ACHConsentVersion  string
	SaveConsentVersion string
}

// NewPayment shows the virtual terminal: a keyed card, a bank account, or a
// customer's saved method (?customer=).
func (h *Handlers) NewPayment(c echo.Context) error {
	mid, _, err := ids(c, "")
	if err != nil {
		return err
	}
	var customerID *uuid.UUID
	if id, err := uuid.Parse(c.QueryParam("customer")); err == nil {
		customerID = &id
	}
	v, err := h.svc.PayPage(c.Request().Context(), view.CurrentUser(c), mid, customerID)
	if err != nil {
		return err
	}
	tab := c.QueryParam("tab")
	if tab != "ach" && tab != "saved" {
		tab = "card"
	}
	card := &CardPaymentForm{Action: "sale", Amount: c.QueryParam("amount"), Reference: c.QueryParam("reference")}
	saved := &SavedPaymentForm{Action: "sale", Amount: c.QueryParam("amount"), Reference: c.QueryParam("reference")}
	if v.Customer != nil {
		card.CustomerID, card.ReceiptEmail = v.Customer.ID.String(), v.Customer.Email
		saved.ReceiptEmail = v.Customer.Email
		if len(v.Methods) > 0 {
			saved.MethodID = v.Methods[0].ID.String()
		}
	}
	return h.renderPay(c, http.StatusOK, &payPage{PayView: v, Tab: tab, Card: card,
		ACH: &ACHPaymentForm{AccountType: "Checking", Amount: c.QueryParam("amount"), Reference: c.QueryParam("reference")}, Saved: saved})
}

// PayCard takes a keyed card payment.
func (h *Handlers) PayCard(c echo.Context) error {
	mid, _, err := ids(c, "")
	if err != nil {
		return err
	}
	var f CardPaymentForm
	if err := bindSecret(c, &f); err != nil {
		return err
	}
	res, err := h.svc.PayCard(c.Request().Context(), view.CurrentUser(c), mid, &f)
	if err == nil {
		return h.afterResult(c, mid, res)
	}
	return h.payAgain(c, mid, err, &payPage{Tab: "card", Card: &f, Reenter: f.CardNumber.Typed})
}

// PayACH takes a bank (ACH) debit.
func (h *Handlers) PayACH(c echo.Context) error {
	mid, _, err := ids(c, "")
	if err != nil {
		return err
	}
	var f ACHPaymentForm
	if err := bindSecret(c, &f); err != nil {
		return err
	}
	res, err := h.svc.PayACH(c.Request().Context(), view.CurrentUser(c), mid, &f)
	if err == nil {
		return h.afterResult(c, mid, res)
	}
	return h.payAgain(c, mid, err, &payPage{Tab: "ach", ACH: &f, Reenter: f.AccountNumber.Typed})
}

// PaySaved charges a customer's saved method.
func (h *Handlers) PaySaved(c echo.Context) error {
	mid, _, err := ids(c, "")
	if err != nil {
		return err
	}
	var f SavedPaymentForm
	if err := c.Bind(&f); err != nil {
		return err
	}
	res, err := h.svc.PaySaved(c.Request().Context(), view.CurrentUser(c), mid, &f)
	if err == nil {
		return h.afterResult(c, mid, res)
	}
	return h.payAgain(c, mid, err, &payPage{Tab: "saved", Saved: &f})
}

// payAgain shows the form again with its problem and every value typed but
// the card or account number and security code. The form keeps its token
// (no transaction was made with it), unless it expired.
func (h *Handlers) payAgain(c echo.Context, mid uuid.UUID, err error, page *payPage) error {
	problem, status, ok := problemOf(err)
	if !ok {
		return err
	}
	var customerID *uuid.UUID
	if page.Saved != nil {
		if sm, err := h.svc.methodOf(c.Request().Context(), mid, page.Saved.MethodID); err == nil {
			customerID = &sm.CustomerID
		}
	}
	v, verr := h.svc.PayPage(c.Request().Context(), view.CurrentUser(c), mid, customerID)
	if verr != nil {
		return verr
	}
	page.PayView, page.formProblem = v, problem
	if _, expired := problem.Errors["form"]; !expired {
		switch {
		case page.Card != nil:
			v.CardToken = page.Card.FormToken
		case page.ACH != nil:
			v.ACHToken = page.ACH.FormToken
		case page.Saved != nil:
			v.SavedToken = page.Saved.FormToken
		}
	}
	if page.Card == nil {
		page.Card = &CardPaymentForm{Action: "sale"}
	}
	if page.ACH == nil {
		page.ACH = &ACHPaymentForm{AccountType: "Checking"}
	}
	if page.Saved == nil {
		page.Saved = &SavedPaymentForm{Action: "sale"}
	}
	return h.renderPay(c, status, page)
}

func (h *Handlers) renderPay(c echo.Context, status int, page *payPage) error {
	page.AuthorizationWays, page.ACHConsentVersion, page.SaveConsentVersion = AuthorizationWays, ACHConsentVersion, SaveConsentVersion
	if page.Errors == nil {
		page.Errors = apperr.FieldErrors{}
	}
	return h.views.Page(c, status, "payments/new", "Take a payment · "+page.Merchant.Name, page)
}
