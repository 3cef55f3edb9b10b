package dashboard_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/dashboard"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
	"github.com/payportal/portal/internal/testutil/cputime"
)

// firstSearchRuns is how many searches each fresh connection serves.
const firstSearchRuns = 8

// BenchmarkDashboardFirstSearch measures the dashboard's search (count and page) on
// connections that have just been opened, at 100,000 applications: each round opens a
// new pool of one connection, as the portal's pool does when it grows or replaces an old
// connection, and runs the same search on it eight times. Reported: the medians over
// rounds of the first search, of the second to fifth, and of the sixth to eighth (by then
// a prepared statement may have switched to a generic plan), and their ratio, for an
// admin's search ("fern", about 5,000 matches) and a rep's ("salon" among their 5,000).
// Run with -benchtime 12x (one round per iteration).
func BenchmarkDashboardFirstSearch(b *testing.B) {
	// No job workers: the seeded applications "submitting" would otherwise be pushed,
	// beside the measurement, by the reconciler.
	env := apptest.New(b, apptest.WithoutWorkers())
	admin, _ := env.CreateUser(b, "admin@bench.example", models.RoleAdmin)
	seedDashboard(b, env)
	ctx := context.Background()
	var rep models.User
	if err := env.DB.Gorm.Where("email = ?", "rep1@bench.example").Take(&rep).Error; err != nil {
		b.Fatal(err)
	}
	var cases []struct {
		name   string
		user   *models.User
		q      dashboard.ListQuery
		warmed bool
	}
	for _, warmed := range []bool{true, false} {
		suffix := "-warmed"
		if !warmed {
			suffix = "-unwarmed"
		}
		cases = append(cases, []struct {
			name   string
			user   *models.User
			q      dashboard.ListQuery
			warmed bool
		}{
			{"admin-fern" + suffix, admin, dashboard.ListQuery{Search: "fern"}, warmed},
			{"rep-salon" + suffix, &rep, dashboard.ListQuery{Search: "salon"}, warmed},
		}...)
	}
	times := map[string][][]float64{} // case → run index → ms over rounds
	load := cputime.LoadAverage()
	for b.Loop() {
		for _, tc := range cases {
			db, err := database.Open(ctx, env.DBURL, 1, slog.New(slog.DiscardHandler))
			if err != nil {
				b.Fatal(err)
			}
			if tc.warmed {
				db.WarmConnections(ctx, dashboard.WarmConnection)
			}
			svc := dashboard.NewService(db.Pool, applications.NewStore(db.Pool))
			if times[tc.name] == nil {
				times[tc.name] = make([][]float64, firstSearchRuns)
			}
			for i := range firstSearchRuns {
				t := time.Now()
				page, err := svc.List(ctx, tc.user, tc.q)
				if err != nil {
					b.Fatal(err)
				}
				if len(page.Rows) == 0 {
					b.Fatal("empty page")
				}
				times[tc.name][i] = append(times[tc.name][i], float64(time.Since(t))/float64(time.Millisecond))
			}
			db.Close()
		}
	}
	b.Logf("load average before: %s; after: %s", load, cputime.LoadAverage())
	for _, tc := range cases {
		runs := times[tc.name]
		med := func(from, to int) float64 {
			var all []float64
			for i := from; i < to; i++ {
				all = append(all, runs[i]...)
			}
			slices.Sort(all)
			return all[len(all)/2]
		}
		first, early, later := med(0, 1), med(1, 5), med(5, firstSearchRuns)
		b.ReportMetric(first, tc.name+"-first-ms")
		b.ReportMetric(early, tc.name+"-2nd-5th-ms")
		b.ReportMetric(later, tc.name+"-6th-8th-ms")
		b.ReportMetric(first/later, tc.name+"-x-first")
		b.Logf("%s: first %.1f ms, 2nd-5th %.1f ms, 6th-8th %.1f ms (each run's median: %s)", tc.name, first, early, later, fmt.Sprint(medians(runs)))
	}
	b.ReportMetric(0, "ns/op")
}

func medians(runs [][]float64) []string {
	out := make([]string, len(runs))
	for i, r := range runs {
		v := slices.Clone(r)
		slices.Sort(v)
		out[i] = fmt.Sprintf("%.1f", v[len(v)/2])
	}
	return out
}
