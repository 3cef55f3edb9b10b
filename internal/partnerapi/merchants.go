package partnerapi

import (
	"net/http"
	"slices"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/merchants"
	"github.com/payportal/portal/internal/payments"
)

// ListMerchants lists the boarded merchants the key may see, by name, in cursor pages.
func (h *Handlers) ListMerchants(c echo.Context) error {
	errs := map[string]string{}
	limit := readLimit(c, errs)
	after := uuid.Nil
	if s := c.QueryParam("cursor"); s != "" {
		raw, ok := decodeCursor(s)
		id, err := uuid.Parse(raw)
		if !ok || err != nil {
			errs["cursor"] = "Must be a nextCursor a page of this list answered."
		}
		after = id
	}
	if len(errs) > 0 {
		return invalidQuery(errs)
	}
	list, err := h.d.Merchants.List(c.Request().Context(), viewer(principalOf(c)))
	if err != nil {
		return err
	}
	start := 0
	if after != uuid.Nil {
		start = slices.IndexFunc(list, func(m merchants.Merchant) bool { return m.ID == after }) + 1
		if start == 0 {
			return invalidQuery(map[string]string{"cursor": "Must be a nextCursor a page of this list answered; that merchant is no longer listed, start again."})
		}
	}
	page := list[start:min(start+limit, len(list))]
	data := make([]any, len(page))
	for i := range page {
		data[i] = merchantBody(&page[i])
	}
	var next *string
	if start+limit < len(list) {
		s := encodeCursor(page[len(page)-1].ID.String())
		next = &s
	}
	return ok(c, http.StatusOK, map[string]any{"data": data, "nextCursor": next})
}

// GetMerchant answers a merchant the key may see (merchants.Service.Visible): where it
// stands and when it was boarded; never its credentials.
func (h *Handlers) GetMerchant(c echo.Context) error {
	id, err := idParam(c, "merchantId")
	if err != nil {
		return err
	}
	m, _, err := h.d.Merchants.Visible(c.Request().Context(), viewer(principalOf(c)), id)
	if err != nil {
		return err
	}
	return ok(c, http.StatusOK, merchantBody(m))
}

// merchantBody is a merchant as the API shows it.
func merchantBody(m *merchants.Merchant) map[string]any {
	st := m.State()
	return map[string]any{"id": m.ID, "applicationId": m.ApplicationID, "ownerId": m.OwnerID, "name": m.Name,
		"legalName": m.LegalName, "state": st.Outcome, "stateLabel": st.Label, "processorStatus": m.UpstreamStatus,
		"boardedAt": ts(m.BoardedAt), "suspended": m.Suspended(), "suspendedAt": tsp(m.SuspendedAt),
		"createdAt": ts(m.CreatedAt), "updatedAt": ts(m.UpdatedAt)}
}

// ListTransactions lists a merchant's ledger, newest first, as its page does (the
// payments room checks the key may view it).
func (h *Handlers) ListTransactions(c echo.Context) error {
	id, err := idParam(c, "merchantId")
	if err != nil {
		return err
	}
	errs := map[string]string{}
	f := payments.Filter{MerchantID: id, Limit: readLimit(c, errs), After: c.QueryParam("cursor")}
	if len(f.After) > 200 {
		errs["cursor"] = "Must be a nextCursor a page of this list answered."
	}
	if len(errs) > 0 {
		return invalidQuery(errs)
	}
	v, err := h.d.Payments.Transactions(c.Request().Context(), viewer(principalOf(c)), f)
	if err != nil {
		return err
	}
	data := make([]any, len(v.Page.Transactions))
	for i, t := range v.Page.Transactions {
		data[i] = transactionBody(t)
	}
	var next *string
	if v.Page.Next != "" {
		next = &v.Page.Next
	}
	return ok(c, http.StatusOK, map[string]any{"data": data, "nextCursor": next})
}

// GetTransaction answers one transaction of a merchant's ledger.
func (h *Handlers) GetTransaction(c echo.Context) error {
	id, err := idParam(c, "merchantId")
	if err != nil {
		return err
	}
	tid, err := idParam(c, "transactionId")
	if err != nil {
		return err
	}
	v, err := h.d.Payments.Transaction(c.Request().Context(), viewer(principalOf(c)), id, tid)
	if err != nil {
		return err
	}
	return ok(c, http.StatusOK, transactionBody(v.Transaction))
}

// currency is the ledger's one currency.
const currency = "USD"

// transactionBody is a ledger line as the API shows it: amounts as decimal strings with
// their currency, the card as the pages show it (brand and last four), never a billing
// address or a cardholder's name.
func transactionBody(t *payments.Transaction) map[string]any {
	return map[string]any{"id": t.ID, "merchantId": t.MerchantID, "parentId": t.ParentID,
		"source": string(t.Source), "kind": string(t.Kind), "status": string(t.Status), "currency": currency,
		"amount": money(t.AmountCents), "tipAmount": money(t.TipCents), "taxAmount": money(t.TaxCents),
		"approvedAmount": money(t.ApprovedCents), "refundedAmount": money(t.RefundedCents), "balanceAmount": money(t.BalanceCents),
		"card": map[string]any{"brand": t.Card.Brand, "last4": t.Card.Last4}, "reference": t.Reference,
		"approvalCode": t.ApprovalCode, "resultMessage": t.ResultMessage, "batchNumber": t.BatchNumber,
		"heldForReview": t.HeldForReview, "createdAt": ts(t.CreatedAt), "updatedAt": ts(t.UpdatedAt), "answeredAt": tsp(t.AnsweredAt)}
}

// money writes cents as a decimal string ("-12.05").
func money(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	frac := cents % 100
	pad := ""
	if frac < 10 {
		pad = "0"
	}
	return sign + itoa64(cents/100) + "." + pad + itoa64(frac)
}
