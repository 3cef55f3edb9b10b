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
	"github.com/payportal/portal/internal/validation"
)

// benchApplications is the size the dashboard must stay fast at.
const benchApplications = 100_000

// benchReps share the applications, so a rep's own list holds 5,000.
const benchReps = 20

// seedDashboard fills the database with benchApplications applications spread over
// benchReps reps, in one INSERT ... SELECT: names drawn from word lists (so searches match a
// realistic share), every status, two years of creation dates, 2% soft-deleted, and a draft
// of about 2 kB shaped like a real one with sealed personal data.
func seedDashboard(b *testing.B, env *apptest.Env) {
	b.Helper()
	ctx := context.Background()
	_, err := env.DB.Pool.Exec(ctx, `
INSERT INTO users (id, email, name, role, password_hash)
SELECT gen_random_uuid(), 'rep' || k || '@bench.example', 'Bench Rep ' || k, 'sales_rep', 'x'
FROM generate_series(1, $1::int) AS k`, benchReps)
	if err != nil {
		b.Fatal(err)
	}
	_, err = env.DB.Pool.Exec(ctx, `
WITH reps AS (
  SELECT id, (row_number() OVER (ORDER BY email)) - 1 AS k FROM users WHERE email LIKE 'rep%@bench.example'
), words AS (
  SELECT ARRAY['Blue','Golden','Red','Silver','Green','Happy','Urban','Coastal','Mountain','River',
               'Sunny','Maple','Cedar','Harbor','Prairie','Summit','Copper','Iron','Velvet','Oak'] AS a,
         ARRAY['Fern','Bean','Wrench','Bakery','Bikes','Books','Salon','Garage','Kitchen','Market',
               'Studio','Florist','Dental','Fitness','Tailor','Pharmacy','Brewing','Hardware','Pets','Diner'] AS b,
         ARRAY['LLC','Inc','Co','Corp','Partners','Group'] AS c,
         ARRAY['Jane','John','Maria','Wei','Ahmed','Olga','Luis','Priya','Sam','Keiko'] AS f,
         ARRAY['Doe','Smith','Garcia','Chen','Khan','Ivanova','Lopez','Patel','Brown','Sato'] AS l
)
INSERT INTO applications (id, owner_id, status, legal_name, dba, contact_name, contact_email, draft, version, created_at, updated_at, deleted_at)
SELECT gen_random_uuid(), r.id,
  (ARRAY['draft','draft','draft','draft','needs_attention','submitting','linked','linked'])[1 + n % 8],
  legal, dba, contact, lower(replace(contact, ' ', '.')) || n || '@mail.example',
  jsonb_build_object(
    'business', jsonb_build_object('legal_name', legal, 'dba', dba, 'entity_type', 'llc',
      'tin', 'v1.bench.' || encode(sha256(('tin' || n)::bytea), 'base64') || encode(sha256(('t2' || n)::bytea), 'base64'),
      'incorporation_date', '2015-06-01', 'incorporation_state', 'CA',
      'address', jsonb_build_object('line1', n || ' Market St', 'line2', '', 'city', 'San Francisco', 'state', 'CA', 'postal_code', '94105'),
      'phone', '(415) 555-0100', 'email', 'hello' || n || '@shop.example', 'website', 'https://shop' || n || '.example',
      'goods_and_services', 'Retail goods and services', 'mcc', '5999', 'years_in_business', '6',
      'monthly_volume', '45000.00', 'average_ticket', '12.50', 'highest_ticket', '250.00',
      'card_present_pct', '80', 'keyed_pct', '5', 'ecommerce_pct', '15'),
    'owners', jsonb_build_array(jsonb_build_object('id', gen_random_uuid(), 'first_name', split_part(contact, ' ', 1),
      'last_name', split_part(contact, ' ', 2), 'title', 'Owner', 'ownership_pct', '100', 'date_of_birth', '1980-04-02',
      'ssn', 'v1.bench.' || encode(sha256(('ssn' || n)::bytea), 'base64') || encode(sha256(('s2' || n)::bytea), 'base64'),
      'address', jsonb_build_object('line1', '1 Home Way', 'line2', '', 'city', 'Oakland', 'state', 'CA', 'postal_code', '94601'),
      'phone', '510-555-0199', 'email', 'owner' || n || '@mail.example', 'is_control_person', true)),
    'bank', jsonb_build_object('holder_name', legal, 'routing_number', '011401533', 'account_type', 'checking',
      'account_number', 'v1.bench.' || encode(sha256(('acct' || n)::bytea), 'base64') || encode(sha256(('a2' || n)::bytea), 'base64')),
    'contact', jsonb_build_object('name', contact, 'email', 'contact' || n || '@mail.example', 'phone', ''),
    'notes', 'Met at the trade show; follow up about terminals. Ref ' || md5(n::text)),
  1 + n % 7, created, created + get_byte(h, 6) * interval '3 hours',
  CASE WHEN n % 50 = 0 THEN created + interval '1 day' END
FROM generate_series(1, $1::int) AS n
CROSS JOIN words
JOIN reps r ON r.k = n % $2::int
CROSS JOIN LATERAL (SELECT decode(md5(n::text), 'hex') AS h) AS hash
CROSS JOIN LATERAL (SELECT
  words.a[1 + get_byte(h, 0) % 20] || ' ' || words.b[1 + get_byte(h, 1) % 20] || ' ' || words.c[1 + get_byte(h, 2) % 6] AS legal,
  CASE WHEN get_byte(h, 3) % 4 = 0 THEN '' ELSE words.a[1 + get_byte(h, 0) % 20] || ' ' || words.b[1 + get_byte(h, 1) % 20] || ' ' || (n % 997) END AS dba,
  words.f[1 + get_byte(h, 4) % 10] || ' ' || words.l[1 + get_byte(h, 5) % 10] AS contact,
  timestamptz '2024-11-21 00:00:00+00' + (n * interval '631 seconds') AS created) AS v`, benchApplications, benchReps)
	if err != nil {
		b.Fatal(err)
	}
	vacuum(b, env)
}

// vacuum analyzes the seeded tables and waits (up to a minute) until VACUUM has marked the
// table's pages all-visible, as autovacuum keeps them in a running portal: the dashboard's
// index-only scans depend on it. On a cluster shared with other tests, an older open
// transaction elsewhere can hold that back for a while; the figures then show the slower,
// "just bulk-loaded" case, and the log says so.
func vacuum(b *testing.B, env *apptest.Env) {
	b.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(time.Minute)
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for {
		for _, table := range []string{"applications", "users"} {
			if _, err := env.DB.Pool.Exec(ctx, "VACUUM ANALYZE "+table); err != nil {
				b.Fatal(err)
			}
		}
		var pages, visible int64
		if err := env.DB.Pool.QueryRow(ctx, `SELECT relpages, relallvisible FROM pg_class WHERE relname = 'applications'`).Scan(&pages, &visible); err != nil {
			b.Fatal(err)
		}
		if visible*100 >= pages*99 {
			b.Logf("applications: %d pages, %d all-visible", pages, visible)
			return
		}
		if time.Now().After(deadline) {
			b.Logf("applications: only %d of %d pages all-visible; index-only scans will visit the table", visible, pages)
			return
		}
		<-tick.C
	}
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
