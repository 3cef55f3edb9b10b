package payments

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

// Handlers serves the payments pages: the virtual terminal, the ledger, a
// transaction's page and its actions, batches, customers and saved methods.
// Every page that held card data answers Cache-Control: no-store (every page
// of the portal does) and is never re-rendered with a card number or
// security code.
type Handlers struct {
	svc   *Service
	views *view.Renderer
}

// NewHandlers returns the payments handlers.
func NewHandlers(svc *Service, views *view.Renderer) *Handlers {
	return &Handlers{svc: svc, views: views}
}

// ids reads the merchant's id and, when named, another UUID parameter.
func ids(c echo.Context, other string) (uuid.UUID, uuid.UUID, error) {
	mid, err := httpx.UUIDParam(c, "id")
	if err != nil || other == "" {
		return mid, uuid.Nil, err
	}
	id, err := httpx.UUIDParam(c, other)
	return mid, id, err
}

// bindSecret binds a form holding card or bank digits, then wipes them from
// the request's parsed form, so nothing of the request keeps them once the
// typed values are in the client's card types.
func bindSecret(c echo.Context, dst any) error {
	err := c.Bind(dst)
	req := c.Request()
	for _, name := range SecretFields {
		if req.Form != nil {
			req.Form.Del(name)
		}
		if req.PostForm != nil {
			req.PostForm.Del(name)
		}
	}
	if err != nil {
		return apperr.Wrap(apperr.KindInvalid, err, "The form could not be read. Reload the page and try again.")
	}
	return nil
}

// txURL is a transaction's page.
func txURL(mid, id uuid.UUID) string {
	return "/merchants/" + mid.String() + "/transactions/" + id.String()
}

// afterResult sends the browser to the transaction a request made (post,
// redirect, get), saying so when the form had been sent before.
func (h *Handlers) afterResult(c echo.Context, mid uuid.UUID, res *Result) error {
	if res.Repeated {
		h.views.Flash(c, "info", "This form was already sent: here is the transaction it made. Nothing was charged twice.")
	}
	return c.Redirect(http.StatusSeeOther, txURL(mid, res.Transaction.ID))
}

// formProblem sorts a use case's error into what a re-rendered form shows.
type formProblem struct {
	Errors    apperr.FieldErrors
	Duplicate *Transaction
	Review    *ReviewWarning
}

// problemOf answers the form problem of err, or false when err is not one.
func problemOf(err error) (formProblem, int, bool) {
	var p formProblem
	if fields, ok := apperr.FieldsOf(err); ok {
		p.Errors = fields
		return p, http.StatusUnprocessableEntity, true
	}
	var dup *DuplicateError
	if errors.As(err, &dup) {
		p.Duplicate = dup.Earlier
		return p, http.StatusConflict, true
	}
	var review *ReviewWarning
	if errors.As(err, &review) {
		p.Review = review
		return p, http.StatusConflict, true
	}
	return p, 0, false
}

// query rebuilds a query string without empty values.
func query(pairs ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] != "" {
			v.Set(pairs[i], pairs[i+1])
		}
	}
	if len(v) == 0 {
		return ""
	}
	return "?" + v.Encode()
}
