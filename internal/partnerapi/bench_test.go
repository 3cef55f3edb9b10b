package partnerapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/apikeys"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
	"github.com/payportal/portal/internal/testutil/cputime"
)

// benchApplications is the size the API must stay fast at; benchReps share them, so a
// rep-scoped key's own list holds 5,000.
const (
	benchApplications = 100_000
	benchReps         = 20
)

// seedBench fills the database with benchApplications applications over benchReps
// reps in one INSERT ... SELECT (their drafts are shaped like real ones but never
// opened: the lists read the row's columns) and returns the first rep.
func seedBench(b *testing.B, env *apptest.Env) *models.User {
	b.Helper()
	ctx := context.Background()
	if _, err := env.DB.Pool.Exec(ctx, `INSERT INTO users (id, email, name, role, password_hash)
		SELECT gen_random_uuid(), 'rep' || k || '@bench.example', 'Bench Rep ' || k, 'sales_rep', 'x'
		FROM generate_series(1, $1::int) AS k`, benchReps); err != nil {
		b.Fatal(err)
	}
	_, err := env.DB.Pool.Exec(ctx, `
WITH reps AS (SELECT id, (row_number() OVER (ORDER BY email)) - 1 AS k FROM users WHERE email LIKE 'rep%@bench.example')
INSERT INTO applications (id, owner_id, status, legal_name, dba, contact_name, contact_email, draft, version, created_at, updated_at)
SELECT gen_random_uuid(), r.id, (ARRAY['draft','draft','draft','draft','needs_attention','submitting','linked','linked'])[1 + n % 8],
  'Shop ' || n || ' LLC', 'Shop ' || n, 'Jane Doe', 'jane' || n || '@mail.example',
  jsonb_build_object('business', jsonb_build_object('legal_name', 'Shop ' || n || ' LLC', 'notes', repeat('x', 1500))),
  1 + n % 7, timestamptz '2024-11-21 00:00:00+00' + n * interval '631 seconds',
  timestamptz '2024-11-21 00:00:00+00' + n * interval '631 seconds' + (n % 97) * interval '3 hours'
FROM generate_series(1, $1::int) AS n JOIN reps r ON r.k = n % $2::int`, benchApplications, benchReps)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := env.DB.Pool.Exec(ctx, "VACUUM ANALYZE applications"); err != nil {
		b.Fatal(err)
	}
	var rep models.User
	if err := env.DB.Pool.QueryRow(ctx, `SELECT id, email, name FROM users WHERE email = 'rep1@bench.example'`).Scan(&rep.ID, &rep.Email, &rep.Name); err != nil {
		b.Fatal(err)
	}
	return &rep
}

// benchCall is one request the benchmark repeats.
type benchCall struct {
	method, path, body string
	want               int
}

// BenchmarkAPI measures the partner API at 100,000 applications with a rep-scoped key:
// reading one application, a list page (the key's 5,000, and a reseller-wide key's
// 100,000) and creating a draft. It reports the median and p99 answer times and the
// CPU per request of the portal's process (the client included) and of PostgreSQL.
// Results are in BENCHMARKS.md.
func BenchmarkAPI(b *testing.B) {
	env := apptest.New(b, apptest.WithoutWorkers(), apptest.WithEnv("PORTAL_API_RATE_LIMIT", "1000000"))
	admin, _ := env.CreateUser(b, "admin@bench.example", models.RoleAdmin)
	rep := seedBench(b, env)
	key := func(in apikeys.NewKey) string {
		in.Name = string(in.Scope)
		_, secret, err := env.App.APIKeys.Create(context.Background(), admin, in)
		if err != nil {
			b.Fatal(err)
		}
		return secret
	}
	repKey := key(apikeys.NewKey{Scope: apikeys.ScopeRep, RepID: rep.ID.String(), Access: apikeys.AccessWrite})
	resellerKey := key(apikeys.NewKey{Scope: apikeys.ScopeReseller, Access: apikeys.AccessRead})
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4, DisableCompression: true}}
	draft := `{"business": {"legalName": "Blue Fern LLC", "dba": "Blue Fern", "entityType": "llc", "tin": "12-3456789",
		"address": {"line1": "100 Market St", "city": "San Francisco", "state": "CA", "postalCode": "94105"},
		"email": "hello@bluefern.example", "mcc": "5814", "monthlyVolume": "45000.00"},
		"owners": [{"firstName": "Jane", "lastName": "Doe", "ssn": "234-56-6789", "dateOfBirth": "1980-04-02", "isControlPerson": true}],
		"contact": {"name": "Jane Doe", "email": "jane@bluefern.example"}}`
	created := call(b, hc, env.URL, repKey, benchCall{method: http.MethodPost, path: "/api/v1/applications", body: draft, want: http.StatusCreated})
	var app struct{ ID string }
	if err := json.Unmarshal(created, &app); err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name string
		key  string
		call benchCall
	}{
		{"read-application", repKey, benchCall{method: http.MethodGet, path: "/api/v1/applications/" + app.ID, want: http.StatusOK}},
		{"list-page-rep", repKey, benchCall{method: http.MethodGet, path: "/api/v1/applications?limit=25", want: http.StatusOK}},
		{"list-page-reseller", resellerKey, benchCall{method: http.MethodGet, path: "/api/v1/applications?limit=25&state=draft", want: http.StatusOK}},
		{"create-draft", repKey, benchCall{method: http.MethodPost, path: "/api/v1/applications", body: draft, want: http.StatusCreated}},
	}
	pg := cputime.FindPostgres(context.Background(), env.DB.Pool)
	b.Logf("load average: %s", cputime.LoadAverage())
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var lat []time.Duration
			cpu0, pg0 := cputime.Process(), pg.Used()
			for b.Loop() {
				start := time.Now()
				call(b, hc, env.URL, c.key, c.call)
				lat = append(lat, time.Since(start))
			}
			n := float64(len(lat))
			slices.Sort(lat)
			b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
			b.ReportMetric(ms(lat[min(len(lat)-1, len(lat)*99/100)]), "p99-ms")
			b.ReportMetric(float64((cputime.Process()-cpu0).Microseconds())/n/1000, "cpu-ms/req")
			b.ReportMetric(float64((pg.Used()-pg0).Microseconds())/n/1000, "pg-cpu-ms/req")
		})
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// call makes one request and checks its status.
func call(b *testing.B, hc *http.Client, base, key string, c benchCall) []byte {
	var body io.Reader = http.NoBody
	if c.body != "" {
		body = strings.NewReader(c.body)
	}
	req, err := http.NewRequest(c.method, base+c.path, body)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if c.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := hc.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	var buf bytes.Buffer
	_, _ = io.Copy(&buf, res.Body)
	if res.StatusCode != c.want {
		b.Fatalf("%s %s: %d\n%s", c.method, c.path, res.StatusCode, buf.String())
	}
	return buf.Bytes()
}
