package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/payportal/portal/internal/dashboard"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
	"github.com/payportal/portal/internal/testutil/seed"
	"github.com/payportal/portal/internal/validation"
)

// benchApplications is the size the dashboard must stay fast at.
const benchApplications = 100_000

// benchReps share the applications, so a rep's own list holds 5,000.
const benchReps = 20

// seedDashboard fills the database with benchApplications applications spread over
// benchReps reps (seed.Applications), then waits until their pages are all-visible.
func seedDashboard(b *testing.B, env *apptest.Env) {
	b.Helper()
	ctx := context.Background()
	if err := seed.Applications(ctx, env.DB.Pool, benchApplications, benchReps); err != nil {
		b.Fatal(err)
	}
	pages, visible, err := seed.Vacuum(ctx, env.DB.Pool)
	if err != nil {
		b.Fatal(err)
	}
	if visible*100 < pages*99 {
		b.Logf("applications: only %d of %d pages all-visible; index-only scans will visit the table", visible, pages)
		return
	}
	b.Logf("applications: %d pages, %d all-visible", pages, visible)
}

// BenchmarkDashboardList measures the dashboard at 100,000 applications: the list query
// (page plus capped count) for typical requests, and the whole page through the real HTTP
// stack (session, user, query, template). Results and query plans are in BENCHMARKS.md.
func BenchmarkDashboardList(b *testing.B) {
	// No job workers: the seeded applications "submitting" would otherwise be pushed,
	// beside the measurement, by the reconciler.
	env := apptest.New(b, apptest.WithoutWorkers())
	admin, adminPW := env.CreateUser(b, "admin@bench.example", models.RoleAdmin)
	seedDashboard(b, env)
	ctx := context.Background()
	var rep models.User
	if err := env.DB.Gorm.Where("email = ?", "rep1@bench.example").Take(&rep).Error; err != nil {
		b.Fatal(err)
	}
	svc := env.App.Dashboard
	// A cursor half-way down the default order, for a deep page.
	var middle uuid.UUID
	if err := env.DB.Pool.QueryRow(ctx, `SELECT id FROM applications WHERE deleted_at IS NULL
		ORDER BY updated_at DESC, id OFFSET $1 LIMIT 1`, benchApplications/2).Scan(&middle); err != nil {
		b.Fatal(err)
	}

	// Search terms taken from the data: one rare (a whole DBA), one e-mail address.
	var rareName, email string
	if err := env.DB.Pool.QueryRow(ctx, `SELECT dba FROM applications WHERE dba <> '' AND deleted_at IS NULL ORDER BY id LIMIT 1`).Scan(&rareName); err != nil {
		b.Fatal(err)
	}
	if err := env.DB.Pool.QueryRow(ctx, `SELECT split_part(contact_email, '@', 1) FROM applications WHERE deleted_at IS NULL ORDER BY id LIMIT 1 OFFSET 7`).Scan(&email); err != nil {
		b.Fatal(err)
	}
	queries := []struct {
		name string
		user *models.User
		q    dashboard.ListQuery
	}{
		{"query/admin/first_page", admin, dashboard.ListQuery{}},
		{"query/admin/deep_page", admin, dashboard.ListQuery{After: middle}},
		{"query/admin/sort_name", admin, dashboard.ListQuery{Sort: dashboard.SortName}},
		{"query/admin/sort_created_oldest", admin, dashboard.ListQuery{Sort: dashboard.SortCreated, Reverse: true}},
		{"query/admin/sort_status", admin, dashboard.ListQuery{Sort: dashboard.SortStatus}},
		{"query/admin/status_needs_attention", admin, dashboard.ListQuery{Status: models.StatusNeedsAttention}},
		{"query/admin/search_common", admin, dashboard.ListQuery{Search: "fern"}},
		{"query/admin/search_rare", admin, dashboard.ListQuery{Search: rareName}},
		{"query/admin/search_email", admin, dashboard.ListQuery{Search: email}},
		{"query/admin/date_range", admin, dashboard.ListQuery{DateField: dashboard.DateCreated,
			From: mustDate(b, "2025-06-01"), To: mustDate(b, "2025-06-30")}},
		{"query/admin/deleted", admin, dashboard.ListQuery{Deleted: true}},
		{"query/rep/first_page", &rep, dashboard.ListQuery{}},
		{"query/rep/sort_name", &rep, dashboard.ListQuery{Sort: dashboard.SortName}},
		{"query/rep/search", &rep, dashboard.ListQuery{Search: "salon"}},
	}
	for _, tt := range queries {
		b.Run(tt.name, func(b *testing.B) {
			for b.Loop() {
				page, err := svc.List(ctx, tt.user, tt.q)
				if err != nil {
					b.Fatal(err)
				}
				if len(page.Rows) == 0 && !tt.q.Deleted {
					b.Fatal("empty page")
				}
			}
		})
	}

	c := env.Client(b)
	c.Login("admin@bench.example", adminPW)
	pages := []struct{ name, path string }{
		{"page/admin/first_page", "/"},
		{"page/admin/search", "/?" + url.Values{"q": {"fern"}}.Encode()},
		{"page/admin/sort_name_fragment", "/?sort=name"},
	}
	for _, p := range pages {
		b.Run(p.name, func(b *testing.B) {
			header := http.Header{}
			if p.name == "page/admin/sort_name_fragment" {
				header.Set("HX-Request", "true")
				header.Set("HX-Target", "application-list")
			}
			for b.Loop() {
				res := c.Do(http.MethodGet, p.path, nil, header)
				if res.Status != http.StatusOK {
					b.Fatalf("status %d", res.Status)
				}
			}
		})
	}
}

func mustDate(b *testing.B, s string) time.Time {
	b.Helper()
	t, ok := validation.ParseDate(s)
	if !ok {
		b.Fatalf("bad date %s", s)
	}
	return t
}
