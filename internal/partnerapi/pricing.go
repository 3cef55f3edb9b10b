package partnerapi

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// ListPricingModels lists the pricing models an application may choose now.
func (h *Handlers) ListPricingModels(c echo.Context) error {
	list, err := h.d.Pricing.ListSelectable(c.Request().Context())
	if err != nil {
		return err
	}
	data := make([]any, len(list))
	for i, m := range list {
		required := append([]string{}, m.RequiredDocumentTypes...)
		data[i] = map[string]any{"id": m.ID, "name": m.Name, "description": m.Description, "feeSummary": m.FeeSummary,
			"devicePurchased": m.DevicePurchased, "requiredDocumentTypes": required}
	}
	return ok(c, http.StatusOK, map[string]any{"data": data})
}
