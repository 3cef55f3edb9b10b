package payments

import (
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/view"
)

// LedgerForm is the ledger's filter form (a GET: the address can be shared
// and bookmarked).
type LedgerForm struct {
	From      string `query:"from"`
	To        string `query:"to"`
	Type      string `query:"type"`
	Source    string `query:"source"`
	Status    string `query:"status"`
	Min       string `query:"min"`
	Max       string `query:"max"`
	Last4     string `query:"last4"`
	Reference string `query:"reference"`
	User      string `query:"user"`
	Batch     string `query:"batch"`
	After     string `query:"after"`
	// TZ is the viewer's time zone (set by the page's script), in which the
	// dates are days.
	TZ string `query:"tz"`
}

// filter checks the form and turns it into the ledger's Filter.
func (f *LedgerForm) filter(merchantID uuid.UUID) (Filter, apperr.FieldErrors) {
	errs := apperr.FieldErrors{}
	out := Filter{MerchantID: merchantID, Reference: strings.TrimSpace(f.Reference), Batch: strings.TrimSpace(f.Batch), After: f.After}
	loc := time.UTC
	if f.TZ != "" {
		if l, err := time.LoadLocation(f.TZ); err == nil {
			loc = l
		}
	}
	day := func(field, v string) time.Time {
		if strings.TrimSpace(v) == "" {
			return time.Time{}
		}
		d, err := time.ParseInLocation("2006-01-02", strings.TrimSpace(v), loc)
		if err != nil {
			errs.Add(field, "Enter a date such as 2026-11-23.")
		}
		return d
	}
	out.From = day("from", f.From)
	if to := day("to", f.To); !to.IsZero() {
		out.To = to.AddDate(0, 0, 1)
	}
	switch Kind(f.Type) {
	case "", KindSale, KindAuthorization, KindRefund, KindSaveMethod:
		out.Kind = Kind(f.Type)
	default:
		errs.Add("type", "Choose a type from the list.")
	}
	switch Source(f.Source) {
	case "", SourceCard, SourceACH, SourceTerminal:
		out.Source = Source(f.Source)
	default:
		errs.Add("source", "Choose where it was taken from the list.")
	}
	if f.Status != "" {
		known := false
		for _, o := range StatusOptions {
			known = known || o.Value == f.Status
		}
		if !known {
			errs.Add("status", "Choose a status from the list.")
		}
		out.Status = f.Status
	}
	for _, a := range []struct {
		field, v string
		dst      **int64
	}{{"min", f.Min, &out.MinCents}, {"max", f.Max, &out.MaxCents}} {
		if strings.TrimSpace(a.v) == "" {
			continue
		}
		c, msg := parseCents(a.v)
		if msg != "" {
			errs.Add(a.field, msg)
			continue
		}
		*a.dst = &c
	}
	if l := strings.TrimSpace(f.Last4); l != "" {
		if len(l) != 4 || !digitsOnly(l) {
			errs.Add("last4", "Enter the last four digits of the card or account.")
		}
		out.Last4 = l
	}
	if f.User != "" {
		id, err := uuid.Parse(f.User)
		if err != nil {
			errs.Add("user", "Choose a person from the list.")
		} else {
			out.UserID = &id
		}
	}
	return out, errs
}

// Query is the form as a query string, without the page cursor.
func (f LedgerForm) Query() string {
	return query("from", f.From, "to", f.To, "type", f.Type, "source", f.Source, "status", f.Status, "min", f.Min,
		"max", f.Max, "last4", f.Last4, "reference", f.Reference, "user", f.User, "batch", f.Batch, "tz", f.TZ)
}

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
	f := p.Form
	return query("from", f.From, "to", f.To, "type", f.Type, "source", f.Source, "status", f.Status, "min", f.Min,
		"max", f.Max, "last4", f.Last4, "reference", f.Reference, "user", f.User, "batch", f.Batch, "tz", f.TZ,
		"after", p.Page.Next)
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
