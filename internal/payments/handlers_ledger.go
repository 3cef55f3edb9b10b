package payments

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/view"
)

// ledgerPage is the data of the ledger's page.
type ledgerPage struct {
	*LedgerView
	Form     LedgerForm
	Errors   apperr.FieldErrors
	Statuses any
	Kinds    any
}

// NextQuery is the query string of the next page.
func (p *ledgerPage) NextQuery() string {
	return query(append(p.Form.pairs(), "after", p.Page.Next)...)
}

// Chips are the filters in force, each with the address that removes it.
func (p *ledgerPage) Chips() []FilterChip {
	return p.Form.chips("/merchants/"+p.Merchant.ID.String()+"/transactions", p.People)
}

// Ledger lists a merchant's transactions with the filters asked for.
func (h *Handlers) Ledger(c echo.Context) error {
	mid, _, err := ids(c, "")
	if err != nil {
		return err
	}
	var f LedgerForm
	if err := (&echo.DefaultBinder{}).BindQueryParams(c, &f); err != nil {
		return apperr.New(apperr.KindInvalid, "The filters could not be read.")
	}
	filter, errs := f.filter(mid)
	status := http.StatusOK
	if len(errs) > 0 {
		filter, status = Filter{MerchantID: mid}, http.StatusUnprocessableEntity
	}
	v, err := h.svc.Transactions(c.Request().Context(), view.CurrentUser(c), filter)
	if err != nil {
		return err
	}
	page := &ledgerPage{LedgerView: v, Form: f, Errors: errs, Statuses: StatusOptions, Kinds: KindOptions}
	return h.views.Page(c, status, "payments/ledger", "Transactions · "+v.Merchant.Name, page)
}

// Export downloads the filtered ledger as CSV, masked.
func (h *Handlers) Export(c echo.Context) error {
	mid, _, err := ids(c, "")
	if err != nil {
		return err
	}
	var f LedgerForm
	if err := (&echo.DefaultBinder{}).BindQueryParams(c, &f); err != nil {
		return apperr.New(apperr.KindInvalid, "The filters could not be read.")
	}
	filter, errs := f.filter(mid)
	if err := errs.Err(); err != nil {
		return apperr.New(apperr.KindInvalid, "%s", apperr.MessageOf(err))
	}
	ctx := c.Request().Context()
	if _, err := authorize(ctx, h.svc.merchants, view.CurrentUser(c), mid, PermView); err != nil {
		return err
	}
	res := c.Response()
	res.Header().Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	res.Header().Set(echo.HeaderContentDisposition, `attachment; filename="transactions-`+h.svc.now().UTC().Format("2006-01-02")+`.csv"`)
	res.Header().Set("Cache-Control", "no-store")
	res.WriteHeader(http.StatusOK)
	return h.svc.Export(ctx, view.CurrentUser(c), filter, res)
}

// Batches shows the merchant's batches with their totals.
func (h *Handlers) Batches(c echo.Context) error {
	mid, _, err := ids(c, "")
	if err != nil {
		return err
	}
	v, err := h.svc.Batches(c.Request().Context(), view.CurrentUser(c), mid)
	if err != nil {
		return err
	}
	return h.views.Page(c, http.StatusOK, "payments/batches", "Batches · "+v.Merchant.Name, v)
}
