package insights

import (
	"html/template"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/view"
)

// Handlers serve the Insights page and its CSV.
type Handlers struct {
	svc   *Service
	views *view.Renderer
}

// NewHandlers returns the insights' handlers.
func NewHandlers(svc *Service, views *view.Renderer) *Handlers {
	return &Handlers{svc: svc, views: views}
}

// page is the data of the Insights page.
type page struct {
	*Result
	FunnelChart template.HTML
	TimesChart  template.HTML
	// Breakdown is the groups the chosen breakdown shows.
	Breakdown []Group
	CSVQuery  string
}

// Show renders the Insights page (GET /insights).
func (h *Handlers) Show(c echo.Context) error {
	res, err := h.svc.Report(c.Request().Context(), view.CurrentUser(c), filtersFrom(c.QueryParams()))
	status := http.StatusOK
	if _, invalid := apperr.FieldsOf(err); invalid && res != nil {
		status = http.StatusUnprocessableEntity
	} else if err != nil {
		return err
	}
	p := page{Result: res, CSVQuery: res.Filters.Values().Encode()}
	if status == http.StatusOK {
		p.FunnelChart, p.TimesChart = FunnelChart(res.Report), TimesChart(res.Report.All)
		p.Breakdown = res.Report.ByRep
		if res.Filters.By == ByPricing {
			p.Breakdown = res.Report.ByPricing
		}
	}
	return h.views.Page(c, status, "insights/index", "Insights", p)
}

// CSV downloads the numbers of the page (GET /insights.csv).
func (h *Handlers) CSV(c echo.Context) error {
	res, err := h.svc.Report(c.Request().Context(), view.CurrentUser(c), filtersFrom(c.QueryParams()))
	if err != nil {
		return err
	}
	hd := c.Response().Header()
	hd.Set("Content-Type", "text/csv; charset=utf-8")
	hd.Set("Content-Disposition", `attachment; filename="onboarding-insights.csv"`)
	hd.Set("Cache-Control", "no-store")
	c.Response().WriteHeader(http.StatusOK)
	return WriteCSV(c.Response(), res.Report)
}
