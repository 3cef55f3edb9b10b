package insights_test

import (
	"context"
	"encoding/csv"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
)

// seeded is the data set of the hand-computed figures (times in hours after t0):
//
//	     rep    pricing  created submitted linked opened accepted boarded declined
//	A1   alice  P1        0      24        25     49     73       121
//	A2   alice  P1        0      48        49     97
//	A3   alice  P2       24      96        97                             150
//	B1   bob    P2        0      12        13     25     37        85
//	B2   bob    P2       48
//	B3   bob    P2        0      72        73     74     98       218
//	B4   bob    P2     (created before the period)
//	B5   bob    P2     (deleted)
type seeded struct {
	env         *apptest.Env
	t0          time.Time
	alice, bob  *models.User
	admin       *models.User
	passwords   map[string]string
	aliceClient *apptest.Client
	adminClient *apptest.Client
	from, to    string
	p1, p2      uuid.UUID
	apps        map[string]uuid.UUID
}

func seed(t *testing.T) *seeded {
	t.Helper()
	env := apptest.New(t, apptest.WithoutWorkers())
	s := &seeded{env: env, apps: map[string]uuid.UUID{}, passwords: map[string]string{}}
	user := func(email string, role models.Role) (*models.User, *apptest.Client) {
		u, pw := env.CreateUser(t, email, role)
		s.passwords[email] = pw
		c := env.Client(t)
		c.Login(email, pw)
		return u, c
	}
	s.alice, s.aliceClient = user("alice@example.com", models.RoleSalesRep)
	s.bob, _ = user("bob@example.com", models.RoleSalesRep)
	s.admin, s.adminClient = user("admin@example.com", models.RoleAdmin)
	s.t0 = env.Clock.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -30)
	s.from, s.to = s.t0.Format(time.DateOnly), env.Clock.Now().UTC().Format(time.DateOnly)
	s.p1, s.p2 = s.pricing(t, "Flat rate", "FLAT1"), s.pricing(t, "Interchange plus", "ICP1")
	h := func(n float64) *float64 { return &n }
	type steps struct{ created, submitted, linked, opened, accepted, boarded, declined *float64 }
	rows := []struct {
		name    string
		owner   *models.User
		pricing uuid.UUID
		at      steps
		deleted bool
	}{
		{"A1", s.alice, s.p1, steps{h(0), h(24), h(25), h(49), h(73), h(121), nil}, false},
		{"A2", s.alice, s.p1, steps{h(0), h(48), h(49), h(97), nil, nil, nil}, false},
		{"A3", s.alice, s.p2, steps{h(24), h(96), h(97), nil, nil, nil, h(150)}, false},
		{"B1", s.bob, s.p2, steps{h(0), h(12), h(13), h(25), h(37), h(85), nil}, false},
		{"B2", s.bob, s.p2, steps{h(48), nil, nil, nil, nil, nil, nil}, false},
		{"B3", s.bob, s.p2, steps{h(0), h(72), h(73), h(74), h(98), h(218), nil}, false},
		{"B4", s.bob, s.p2, steps{h(-48), h(0), h(1), nil, nil, nil, nil}, false},
		{"B5", s.bob, s.p2, steps{h(0), h(1), h(2), nil, nil, nil, nil}, true},
	}
	for _, r := range rows {
		id := uuid.New()
		s.apps[r.name] = id
		created := s.at(*r.at.created)
		s.exec(t, `INSERT INTO applications (id, owner_id, status, dba, pricing_model_id, created_at, updated_at, deleted_at)
			VALUES ($1, $2, 'draft', $3, $4, $5::timestamptz, $5::timestamptz, CASE WHEN $6 THEN $5::timestamptz END)`, id, r.owner.ID, "Merchant "+r.name, r.pricing, created, r.deleted)
		s.event(t, id, "created", created, "")
		if r.at.submitted != nil {
			s.event(t, id, "submitted", s.at(*r.at.submitted), "")
		}
		if r.at.linked != nil {
			s.event(t, id, "linked", s.at(*r.at.linked), "")
		}
		for status, at := range map[string]*float64{"inProgress": r.at.opened, "processing": r.at.accepted, "boarded": r.at.boarded, "declined": r.at.declined} {
			if at != nil {
				s.event(t, id, "upstream_status", s.at(*at), status)
			}
		}
	}
	// A repeat of a state later on does not move the step.
	s.event(t, s.apps["A1"], "upstream_status", s.at(300), "inProgress")
	return s
}

func (s *seeded) at(hours float64) time.Time {
	return s.t0.Add(time.Duration(hours * float64(time.Hour)))
}

func (s *seeded) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	if _, err := s.env.DB.Pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatal(err)
	}
}

func (s *seeded) pricing(t *testing.T, name, code string) uuid.UUID {
	t.Helper()
	id := uuid.New()
	s.exec(t, `INSERT INTO pricing_models (id, name, upstream_code, fee_summary) VALUES ($1, $2, $3, 'fees')`, id, name, code)
	return id
}

// event records an audit entry; an upstream state is dated by the processor, and the
// portal received it five minutes later.
func (s *seeded) event(t *testing.T, id uuid.UUID, action string, at time.Time, status string) {
	t.Helper()
	details, recorded := `{}`, at
	if status != "" {
		details = `{"status":"` + status + `","created":"` + at.Format(time.RFC3339Nano) + `","applied":true}`
		recorded = at.Add(5 * time.Minute)
	}
	s.exec(t, `INSERT INTO audit_events (subject_kind, subject_id, action, details, created_at) VALUES ('application', $1, $2, $3, $4)`,
		id, action, details, recorded)
}

func (s *seeded) csv(t *testing.T, c *apptest.Client, query string) map[string][]string {
	t.Helper()
	res := c.Get("/insights.csv?" + query)
	if res.Status != http.StatusOK {
		t.Fatalf("CSV: %d", res.Status)
	}
	recs, err := csv.NewReader(strings.NewReader(res.Body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, r := range recs[1:] {
		out[strings.Join(r[:4], "|")] = r[4:]
	}
	return out
}

// The figures against the ones worked out by hand from the seeded data set.
func TestInsightsFiguresMatchHandComputedValues(t *testing.T) {
	t.Parallel()
	s := seed(t)
	query := "from=" + s.from + "&to=" + s.to
	got := s.csv(t, s.adminClient, query+"&by=rep")

	funnel := map[string]string{"created": "6", "submitted": "5", "linked": "5", "opened": "4", "accepted": "3", "boarded": "3", "declined": "1", "withdrawn": "0"}
	shares := map[string]string{"created": "100.0", "submitted": "83.3", "linked": "83.3", "opened": "66.7", "accepted": "50.0", "boarded": "50.0", "declined": "16.7", "withdrawn": "0.0"}
	for step, n := range funnel {
		row := got["funnel|||"+step]
		if row == nil || row[0] != n || row[1] != shares[step] {
			t.Errorf("funnel %s: %v, want %s (%s%%)", step, row, n, shares[step])
		}
	}
	// applications, median hours, 90th percentile hours (interpolated between ranks).
	times := map[string][3]string{
		"all|All applications|created_to_submitted":     {"5", "48.00", "72.00"},
		"all|All applications|submitted_to_linked":      {"5", "1.00", "1.00"},
		"all|All applications|linked_to_opened":         {"4", "18.00", "40.80"},
		"all|All applications|opened_to_accepted":       {"3", "24.00", "24.00"},
		"all|All applications|accepted_to_boarded":      {"3", "48.00", "105.60"},
		"all|All applications|created_to_boarded":       {"3", "121.00", "198.60"},
		"rep|alice@example.com|created_to_submitted":    {"3", "48.00", "67.20"},
		"rep|alice@example.com|created_to_boarded":      {"1", "121.00", "121.00"},
		"rep|bob@example.com|created_to_submitted":      {"2", "42.00", "66.00"},
		"rep|bob@example.com|accepted_to_boarded":       {"2", "84.00", "112.80"},
		"pricing|Flat rate|created_to_submitted":        {"2", "36.00", "45.60"},
		"pricing|Interchange plus|created_to_submitted": {"3", "72.00", "72.00"},
		"pricing|Interchange plus|created_to_boarded":   {"2", "151.50", "204.70"},
	}
	for key, want := range times {
		row := got["time|"+key]
		if row == nil || row[0] != want[0] || row[2] != want[1] || row[3] != want[2] {
			t.Errorf("%s: %v, want n=%s median %s p90 %s", key, row, want[0], want[1], want[2])
		}
	}
	// Waiting: B2 after "created" since 48 h, A2 after "opened" since 97 h; the usual
	// time of each step is its 90th percentile to the next (72 h and 24 h).
	now := s.env.Clock.Now()
	b2, a2 := now.Sub(s.at(48)).Hours(), now.Sub(s.at(97)).Hours()
	stalls := map[string][]string{
		"created": {"1", "", fmtFloat(b2), "72.00", "1", fmtFloat(b2)},
		"opened":  {"1", "", fmtFloat(a2), "24.00", "1", fmtFloat(a2)},
		"linked":  {"0", "", "0.00", "40.80", "0", "0.00"},
	}
	for step, want := range stalls {
		if row := got["stalled|||"+step]; strings.Join(row, ",") != strings.Join(want, ",") {
			t.Errorf("stalled after %s: %v, want %v", step, row, want)
		}
	}

	// The page shows the same numbers, the chart described in words.
	page := s.adminClient.Get("/insights?" + query)
	for _, want := range []string{`<tr data-step="opened"><th scope="row"><abbr title="Merchant completing: The merchant opened the link and is completing the application at the processor.">Opened</abbr></th><td>4</td><td>67%</td></tr>`,
		`Linked → Opened: median 18 hours, 90% within 40.8 hours (4)`, `role="img"`, `Merchant B2`} {
		if !strings.Contains(page.Body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// A rep sees the figures of their own applications only, whatever they ask.
func TestARepSeesTheirOwnFigures(t *testing.T) {
	t.Parallel()
	s := seed(t)
	got := s.csv(t, s.aliceClient, "from="+s.from+"&to="+s.to+"&owner="+s.bob.ID.String()+"&by=rep")
	if row := got["funnel|||created"]; row == nil || row[0] != "3" {
		t.Errorf("a rep's funnel: %v, want 3 created", row)
	}
	if row := got["time|pricing|Flat rate|created_to_submitted"]; row == nil || row[2] != "36.00" {
		t.Errorf("a rep's times per pricing model: %v", row)
	}
	page := s.aliceClient.Get("/insights?from=" + s.from + "&to=" + s.to)
	if strings.Contains(page.Body, "Merchant B") || strings.Contains(page.Body, `id="owner"`) {
		t.Errorf("a rep sees another rep's applications or the rep filter")
	}
}

func TestInsightsRefuseABadPeriod(t *testing.T) {
	t.Parallel()
	s := seed(t)
	res := s.adminClient.Get("/insights?from=2026-12-01&to=2026-11-01")
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "To must be on or after From.") || !strings.Contains(res.Body, `value="2026-12-01"`) {
		t.Errorf("bad period: %d", res.Status)
	}
	if res := s.adminClient.Get("/insights?from=yesterday"); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("a date that is no date: %d", res.Status)
	}
}
