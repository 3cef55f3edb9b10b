package dashboard_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/app"
	"github.com/payportal/portal/internal/dashboard"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/cputime"
	"github.com/payportal/portal/internal/view"
	"github.com/payportal/portal/views"
)

// BenchmarkDashboardRender renders the dashboard page (25 rows, an admin with 20 owners to
// filter by) and its list fragment from the real templates, without HTTP or database: the
// rendering share of a dashboard request (see BENCHMARKS.md). Rows are rendered once per
// distinct content and then reused; the "-changed-rows" cases change every row before
// every render, so that none is reused.
func BenchmarkDashboardRender(b *testing.B) {
	r, err := view.New(views.FS, app.ViewFuncs(func(name string) string { return "/assets/" + name + "?v=0123456789ab" }),
		scs.New(), "Acme Payments")
	if err != nil {
		b.Fatal(err)
	}
	admin := &models.User{ID: uuid.New(), Email: "admin@example.com", Name: "Ada Admin", Role: models.RoleAdmin, Active: true}
	data := renderData(admin)
	e := echo.New()
	for _, tc := range []struct {
		name              string
		fragment, changed bool
	}{{"page", false, false}, {"fragment", true, false}, {"page-changed-rows", false, true}, {"fragment-changed-rows", true, true}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cputime.Process()
			for b.Loop() {
				if tc.changed {
					for j := range data.Page.Rows {
						data.Page.Rows[j].UpdatedAt = data.Page.Rows[j].UpdatedAt.Add(time.Second)
					}
				}
				rec := httptest.NewRecorder()
				c := e.NewContext(httptest.NewRequest(http.MethodGet, "/", nil), rec)
				view.SetUser(c, admin)
				view.SetCSRFToken(c, "csrf-token-0123456789")
				var err error
				if tc.fragment {
					err = r.Fragment(c, http.StatusOK, "dashboard/list", data)
				} else {
					err = r.Page(c, http.StatusOK, "dashboard/index", "Applications", data)
				}
				if err != nil || rec.Code != http.StatusOK {
					b.Fatalf("render: %v (%d)", err, rec.Code)
				}
			}
			// CPU time rather than the clock: the machine is shared, and a busy one
			// stretches the clock's time, not the work.
			b.ReportMetric(float64((cputime.Process()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

// renderData is a full page of the dashboard as an admin sees it.
func renderData(admin *models.User) *dashboard.ListView {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	statuses := []models.ApplicationStatus{models.StatusDraft, models.StatusSubmitting, models.StatusNeedsAttention, models.StatusLinked}
	page := &dashboard.ListPage{Total: 1000, Capped: true, Next: uuid.New()}
	for i := range dashboard.DefaultPageSize {
		row := dashboard.ListRow{
			ID: uuid.New(), DBA: fmt.Sprintf("Blue Fern %d", i), LegalName: fmt.Sprintf("Blue Fern Coffee %d LLC", i),
			ContactName: "Jane Doe", ContactEmail: fmt.Sprintf("jane%d@bluefern.example", i), Status: statuses[i%4],
			OwnerID: uuid.New(), OwnerName: "Rita Rep", CreatedAt: now.AddDate(0, 0, -i), UpdatedAt: now.Add(-time.Duration(i) * time.Hour),
		}
		if row.Status == models.StatusLinked {
			opened, status := now.Add(-time.Hour), "inProgress"
			row.OpenedAt, row.UpstreamStatus = &opened, &status
		}
		page.Rows = append(page.Rows, row)
	}
	users := make([]models.User, 20)
	for i := range users {
		users[i] = models.User{ID: uuid.New(), Email: fmt.Sprintf("rep%d@example.com", i), Name: fmt.Sprintf("Rep %d", i), Active: i != 3}
	}
	form, _ := dashboard.BindListForm(nil)
	return &dashboard.ListView{Form: form, Page: page, IsAdmin: admin.IsAdmin(), Users: users}
}
