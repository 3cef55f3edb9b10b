package payments

import (
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/httpx"
	"github.com/payportal/portal/internal/view"
)

// transactionPage is the data of a transaction's page.
type transactionPage struct {
	*TransactionView
	Errors  apperr.FieldErrors
	Capture CaptureForm
	Tip     TipForm
	Receipt ReceiptForm
	Now     time.Time
}

// Show shows a transaction: its amounts, card (masked), the processor's
// answer, its timeline and what the user may do with it.
func (h *Handlers) Show(c echo.Context) error {
	mid, id, err := ids(c, "tid")
	if err != nil {
		return err
	}
	return h.renderTransaction(c, http.StatusOK, mid, id, &transactionPage{})
}

func (h *Handlers) renderTransaction(c echo.Context, status int, mid, id uuid.UUID, page *transactionPage) error {
	v, err := h.svc.Transaction(c.Request().Context(), view.CurrentUser(c), mid, id)
	if err != nil {
		return err
	}
	page.TransactionView, page.Now = v, h.svc.now()
	if page.Errors == nil {
		page.Errors = apperr.FieldErrors{}
	}
	t := v.Transaction
	if page.Capture.Amount == "" && t.Kind == KindAuthorization {
		page.Capture.Amount = decimal(t.AmountCents)
	}
	if page.Tip.Tip == "" {
		page.Tip.Tip = decimal(t.TipCents)
	}
	if page.Receipt.Email == "" && v.Customer != nil {
		page.Receipt.Email = v.Customer.Email
	}
	if httpx.IsHTMX(c) && c.QueryParam("fragment") == "status" {
		return h.views.Fragment(c, status, "payments/status", page)
	}
	return h.views.Page(c, status, "payments/transaction", t.KindLabel()+" · "+v.Merchant.Name, page)
}

// Status answers the status panel alone, for the page's poll while the
// outcome is not known yet.
func (h *Handlers) Status(c echo.Context) error {
	mid, id, err := ids(c, "tid")
	if err != nil {
		return err
	}
	t, err := h.svc.Reload(c.Request().Context(), view.CurrentUser(c), mid, id)
	if err != nil {
		return err
	}
	if !t.Status.Open() {
		// Known now: reload the whole page, with its actions.
		c.Response().Header().Set("HX-Refresh", "true")
	}
	return h.views.Fragment(c, http.StatusOK, "payments/status", &transactionPage{TransactionView: &TransactionView{Transaction: t}, Now: h.svc.now()})
}

// Capture captures an authorization.
func (h *Handlers) Capture(c echo.Context) error {
	mid, id, err := ids(c, "tid")
	if err != nil {
		return err
	}
	var f CaptureForm
	if err := c.Bind(&f); err != nil {
		return err
	}
	res, err := h.svc.Capture(c.Request().Context(), view.CurrentUser(c), mid, id, &f)
	if fields, ok := apperr.FieldsOf(err); ok {
		return h.renderTransaction(c, http.StatusUnprocessableEntity, mid, id, &transactionPage{Errors: prefixed("capture_", fields), Capture: f})
	}
	if err != nil {
		return err
	}
	return h.afterAction(c, mid, id, res)
}

// AdjustTip changes a sale's tip.
func (h *Handlers) AdjustTip(c echo.Context) error {
	mid, id, err := ids(c, "tid")
	if err != nil {
		return err
	}
	var f TipForm
	if err := c.Bind(&f); err != nil {
		return err
	}
	res, err := h.svc.AdjustTip(c.Request().Context(), view.CurrentUser(c), mid, id, &f)
	if fields, ok := apperr.FieldsOf(err); ok {
		return h.renderTransaction(c, http.StatusUnprocessableEntity, mid, id, &transactionPage{Errors: prefixed("tip_", fields), Tip: f})
	}
	if err != nil {
		return err
	}
	return h.afterAction(c, mid, id, res)
}

// SendReceipt e-mails a transaction's receipt.
func (h *Handlers) SendReceipt(c echo.Context) error {
	mid, id, err := ids(c, "tid")
	if err != nil {
		return err
	}
	var f ReceiptForm
	if err := c.Bind(&f); err != nil {
		return err
	}
	_, err = h.svc.SendReceipt(c.Request().Context(), view.CurrentUser(c), mid, id, &f)
	if fields, ok := apperr.FieldsOf(err); ok {
		return h.renderTransaction(c, http.StatusUnprocessableEntity, mid, id, &transactionPage{Errors: fields, Receipt: f})
	}
	if err != nil {
		return err
	}
	h.views.Flash(c, "success", "The receipt is on its way to "+maskEmail(f.Email)+".")
	return c.Redirect(http.StatusSeeOther, txURL(mid, id))
}

// afterAction goes to the original's page after an operation on it.
func (h *Handlers) afterAction(c echo.Context, mid, id uuid.UUID, res *Result) error {
	t := res.Transaction
	switch {
	case res.Repeated:
		h.views.Flash(c, "info", "This form was already sent: nothing was done twice.")
	case t.Status == StatusFailed || t.Status == StatusDeclined:
		h.views.Flash(c, "error", t.KindLabel()+" refused: "+t.ResultMessage)
	case t.Status.Open():
		h.views.Flash(c, "info", msgUnknownOutcome)
	default:
		h.views.Flash(c, "success", t.KindLabel()+": "+t.StatusLabel()+".")
	}
	return c.Redirect(http.StatusSeeOther, txURL(mid, id))
}

// prefixed names a form's field errors as the page that holds several forms
// does: "capture_amount".
func prefixed(prefix string, fields apperr.FieldErrors) apperr.FieldErrors {
	out := apperr.FieldErrors{}
	for k, v := range fields {
		out[prefix+k] = v
	}
	return out
}

// reversePage is the data of the Reverse page.
type reversePage struct {
	*ReversePage
	Form ReverseForm
	formProblem
	Now time.Time
}

// ShowReverse shows what Reverse will do: void while possible (with the time
// left before the 25-minute rule), else a linked refund.
func (h *Handlers) ShowReverse(c echo.Context) error {
	mid, id, err := ids(c, "tid")
	if err != nil {
		return err
	}
	return h.renderReverse(c, http.StatusOK, mid, id, &reversePage{})
}

func (h *Handlers) renderReverse(c echo.Context, status int, mid, id uuid.UUID, page *reversePage) error {
	p, err := h.svc.ReverseFormFor(c.Request().Context(), view.CurrentUser(c), mid, id)
	if err != nil {
		return err
	}
	if page.Form.FormToken != "" && page.Errors["form"] == "" {
		p.Token = page.Form.FormToken
	}
	page.ReversePage, page.Now = p, h.svc.now()
	if page.Form.Amount == "" {
		page.Form.Amount = decimal(p.Plan.LeftCents)
	}
	if page.Errors == nil {
		page.Errors = apperr.FieldErrors{}
	}
	return h.views.Page(c, status, "payments/reverse", "Reverse · "+p.Plan.Merchant.Name, page)
}

// Reverse voids or refunds.
func (h *Handlers) Reverse(c echo.Context) error {
	mid, id, err := ids(c, "tid")
	if err != nil {
		return err
	}
	var f ReverseForm
	if err := c.Bind(&f); err != nil {
		return err
	}
	res, err := h.svc.Reverse(c.Request().Context(), view.CurrentUser(c), mid, id, &f)
	if problem, status, ok := problemOf(err); ok {
		return h.renderReverse(c, status, mid, id, &reversePage{Form: f, formProblem: problem})
	}
	if err != nil {
		return err
	}
	t := res.Transaction
	if t.Status == StatusFailed && t.Details["settled"] == "true" || t.Status == StatusFailed && t.Kind == KindVoid {
		// Settled: the Reverse page now offers the linked refund.
		h.views.Flash(c, "info", t.ResultMessage)
		return c.Redirect(http.StatusSeeOther, txURL(mid, id)+"/reverse")
	}
	return h.afterAction(c, mid, id, res)
}
