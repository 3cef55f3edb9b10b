package payments

import (
	"net/http"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/view"
)

// customersPage is the data of the customers' page.
type customersPage struct {
	Merchant  *Merchant
	Customers []Customer
	Form      CustomerForm
	Errors    apperr.FieldErrors
}

// Customers lists a merchant's customers, with the form to add one.
func (h *Handlers) Customers(c echo.Context) error {
	mid, _, err := ids(c, "")
	if err != nil {
		return err
	}
	return h.renderCustomers(c, http.StatusOK, mid, &customersPage{})
}

func (h *Handlers) renderCustomers(c echo.Context, status int, mid uuid.UUID, page *customersPage) error {
	m, list, err := h.svc.Customers(c.Request().Context(), view.CurrentUser(c), mid)
	if err != nil {
		return err
	}
	if !m.SeesPersonalData {
		return forbidden(PermSavedMethods)
	}
	page.Merchant, page.Customers = m, list
	if page.Errors == nil {
		page.Errors = apperr.FieldErrors{}
	}
	return h.views.Page(c, status, "payments/customers", "Customers · "+m.Name, page)
}

// CreateCustomer adds a customer and opens their page.
func (h *Handlers) CreateCustomer(c echo.Context) error {
	mid, _, err := ids(c, "")
	if err != nil {
		return err
	}
	var f CustomerForm
	if err := c.Bind(&f); err != nil {
		return err
	}
	cust, err := h.svc.CreateCustomer(c.Request().Context(), view.CurrentUser(c), mid, &f)
	if fields, ok := apperr.FieldsOf(err); ok {
		return h.renderCustomers(c, http.StatusUnprocessableEntity, mid, &customersPage{Form: f, Errors: fields})
	}
	if err != nil {
		return err
	}
	h.views.Flash(c, "success", "Customer added.")
	return c.Redirect(http.StatusSeeOther, "/merchants/"+mid.String()+"/customers/"+cust.ID.String())
}

// customerPage is the data of a customer's page.
type customerPage struct {
	*CustomerPage
	SaveToken   string
	Form        *SaveMethodForm
	Errors      apperr.FieldErrors
	Reenter     bool
	ConsentWays any
	CanSave     bool
	CanPay      bool
	CanRemove   bool
	SaveVersion string
}

// ShowCustomer shows a customer with their saved methods and transactions.
func (h *Handlers) ShowCustomer(c echo.Context) error {
	mid, cid, err := ids(c, "cid")
	if err != nil {
		return err
	}
	return h.renderCustomer(c, http.StatusOK, mid, cid, &customerPage{Form: &SaveMethodForm{Method: "card", AccountType: "Checking"}})
}

func (h *Handlers) renderCustomer(c echo.Context, status int, mid, cid uuid.UUID, page *customerPage) error {
	u := view.CurrentUser(c)
	v, err := h.svc.CustomerView(c.Request().Context(), u, mid, cid)
	if err != nil {
		return err
	}
	if !v.Merchant.SeesPersonalData {
		return forbidden(PermSavedMethods)
	}
	m := v.Merchant
	page.CustomerPage = v
	page.CanSave = m.Can(PermSavedMethods) && m.CanTransact()
	page.CanRemove = m.Can(PermSavedMethods)
	page.CanPay = m.Can(PermTakePayments) && m.CanTransact()
	if page.CanSave && page.SaveToken == "" {
		if page.SaveToken, err = h.svc.MintToken(m, u, PurposeSaveMethod(cid)); err != nil {
			return err
		}
	}
	page.ConsentWays, page.SaveVersion = ConsentWays, SaveConsentVersion
	if page.Errors == nil {
		page.Errors = apperr.FieldErrors{}
	}
	return h.views.Page(c, status, "payments/customer", v.Customer.Name+" · "+m.Name, page)
}

// SaveMethod saves a card or bank account for a customer, with their consent.
func (h *Handlers) SaveMethod(c echo.Context) error {
	mid, cid, err := ids(c, "cid")
	if err != nil {
		return err
	}
	var f SaveMethodForm
	if err := bindSecret(c, &f); err != nil {
		return err
	}
	res, err := h.svc.SaveMethod(c.Request().Context(), view.CurrentUser(c), mid, cid, &f)
	if fields, ok := apperr.FieldsOf(err); ok {
		page := &customerPage{Form: &f, Errors: fields, Reenter: f.CardNumber.Typed || f.AccountNumber.Typed}
		if fields["form"] == "" {
			page.SaveToken = f.FormToken
		}
		return h.renderCustomer(c, http.StatusUnprocessableEntity, mid, cid, page)
	}
	if err != nil {
		return err
	}
	t := res.Transaction
	switch {
	case res.Repeated:
		h.views.Flash(c, "info", "This form was already sent: nothing was saved twice.")
	case t.Status == StatusApproved:
		h.views.Flash(c, "success", t.Card.Label()+" is saved for this customer.")
	case t.Status.Open():
		h.views.Flash(c, "info", msgUnknownOutcome)
	default:
		h.views.Flash(c, "error", "Not saved: "+t.ResultMessage)
	}
	return c.Redirect(http.StatusSeeOther, "/merchants/"+mid.String()+"/customers/"+cid.String())
}

// RemoveMethod takes a saved method off file.
func (h *Handlers) RemoveMethod(c echo.Context) error {
	mid, cid, err := ids(c, "cid")
	if err != nil {
		return err
	}
	_, sid, err := ids(c, "sid")
	if err != nil {
		return err
	}
	sm, err := h.svc.RemoveMethod(c.Request().Context(), view.CurrentUser(c), mid, sid)
	if err != nil {
		return err
	}
	h.views.Flash(c, "success", sm.Card.Label()+" is no longer on file.")
	return c.Redirect(http.StatusSeeOther, "/merchants/"+mid.String()+"/customers/"+cid.String())
}
