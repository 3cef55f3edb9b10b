package apikeys_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/apikeys"
	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/testdb"
)

func newUser(t *testing.T, db *database.DB, name string, role models.Role) *models.User {
	t.Helper()
	u := &models.User{ID: uuid.New(), Email: strings.ToLower(name) + "@example.com", Name: name, Role: role, Active: true}
	_, err := db.Pool.Exec(context.Background(), `INSERT INTO users (id, email, name, role, password_hash) VALUES ($1, $2, $3, $4, 'x')`,
		u.ID, u.Email, u.Name, string(u.Role))
	if err != nil {
		t.Fatal(err)
	}
	return u
}

type fixture struct {
	db    *database.DB
	svc   *apikeys.Service
	admin *models.User
	rep   *models.User
	now   time.Time
}

func setup(t *testing.T) *fixture {
	t.Helper()
	db := testdb.New(t)
	f := &fixture{db: db, now: time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)}
	f.svc = apikeys.NewService(apikeys.NewStore(db.Pool), apikeys.Options{Now: func() time.Time { return f.now }})
	f.admin = newUser(t, db, "Ada", models.RoleAdmin)
	f.rep = newUser(t, db, "Rita", models.RoleSalesRep)
	return f
}

func TestCreateAuthenticateRevoke(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	k, secret, err := f.svc.Create(ctx, f.admin, apikeys.NewKey{Name: " Salon Pro ", Scope: apikeys.ScopeRep, RepID: f.rep.ID.String(), Access: apikeys.AccessWrite})
	if err != nil {
		t.Fatal(err)
	}
	if k.Name != "Salon Pro" || !strings.HasPrefix(secret, k.Prefix+"_") || len(secret) != 56 {
		t.Fatalf("key %+v secret of %d characters", k, len(secret))
	}
	var stored []byte
	if err := f.db.Pool.QueryRow(ctx, `SELECT secret_sha256 FROM api_keys WHERE id = $1`, k.ID).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if len(stored) != 32 || strings.Contains(string(stored), secret) {
		t.Fatalf("stored %d bytes", len(stored))
	}

	p, err := f.svc.Authenticate(ctx, secret)
	if err != nil {
		t.Fatal(err)
	}
	if p.KeyID != k.ID || p.Rep == nil || p.Rep.ID != f.rep.ID || !p.CanWrite() || !p.MaySee(f.rep.ID) || p.MaySee(f.admin.ID) || p.ResellerWide() {
		t.Fatalf("principal %+v", p)
	}
	list, err := f.svc.List(ctx)
	if err != nil || len(list) != 1 || list[0].LastUsedAt == nil || !list[0].LastUsedAt.Equal(f.now) || list[0].RepName != "Rita" {
		t.Fatalf("list %+v, %v", list, err)
	}

	// A second key lives beside the first while a vendor rotates; revoking the first
	// leaves the second working.
	_, second, err := f.svc.Create(ctx, f.admin, apikeys.NewKey{Name: "Salon Pro (new)", Scope: apikeys.ScopeReseller, Access: apikeys.AccessRead})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Revoke(ctx, f.admin, k.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Authenticate(ctx, secret); !errors.Is(err, apikeys.ErrUnauthenticated) {
		t.Fatalf("revoked key: %v", err)
	}
	p2, err := f.svc.Authenticate(ctx, second)
	if err != nil || !p2.ResellerWide() || p2.CanWrite() || !p2.MaySee(uuid.New()) || p2.Rep != nil {
		t.Fatalf("second key %+v, %v", p2, err)
	}
	var actions []string
	rows, _ := f.db.Pool.Query(ctx, `SELECT action FROM audit_events WHERE subject_kind = 'api_key' AND subject_id = $1 ORDER BY id`, k.ID)
	for rows.Next() {
		var a string
		_ = rows.Scan(&a)
		actions = append(actions, a)
	}
	if strings.Join(actions, ",") != audit.ActionAPIKeyCreated+","+audit.ActionAPIKeyRevoked {
		t.Fatalf("trail %v", actions)
	}
	hist, err := audit.History(ctx, f.db.Pool, audit.APIKey(k.ID), 10)
	if err != nil || len(hist) != 2 || hist[0].Text != "revoked the API key" || hist[1].Text != "created the API key" || hist[0].Actor != "Ada" {
		t.Fatalf("history %+v (%v)", hist, err)
	}
}

func TestRepKeyStopsWithItsRep(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	_, secret, err := f.svc.Create(ctx, f.admin, apikeys.NewKey{Name: "Gym", Scope: apikeys.ScopeRep, RepID: f.rep.ID.String(), Access: apikeys.AccessRead})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.Pool.Exec(ctx, `UPDATE users SET active = false WHERE id = $1`, f.rep.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Authenticate(ctx, secret); !errors.Is(err, apikeys.ErrUnauthenticated) {
		t.Fatalf("deactivated rep's key: %v", err)
	}
}

func TestAuthenticateRefusesForgeries(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	_, secret, err := f.svc.Create(ctx, f.admin, apikeys.NewKey{Name: "Gym", Scope: apikeys.ScopeReseller, Access: apikeys.AccessRead})
	if err != nil {
		t.Fatal(err)
	}
	last := secret[len(secret)-1]
	flipped := secret[:len(secret)-1] + string(map[bool]byte{true: 'A', false: 'B'}[last != 'A'])
	for _, token := range []string{"", "Bearer " + secret, flipped, strings.ToUpper(secret), secret + "x", "ppk_", strings.Repeat("a", 5000)} {
		if _, err := f.svc.Authenticate(ctx, token); !errors.Is(err, apikeys.ErrUnauthenticated) {
			t.Errorf("%.20q: %v", token, err)
		}
	}
}

func TestCreateRefusesBadForms(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	cases := []struct {
		in    apikeys.NewKey
		field string
	}{
		{apikeys.NewKey{Scope: apikeys.ScopeReseller, Access: apikeys.AccessRead}, "name"},
		{apikeys.NewKey{Name: strings.Repeat("x", 101), Scope: apikeys.ScopeReseller, Access: apikeys.AccessRead}, "name"},
		{apikeys.NewKey{Name: "a", Scope: apikeys.ScopeReseller, Access: "admin"}, "access"},
		{apikeys.NewKey{Name: "a", Scope: "everything", Access: apikeys.AccessRead}, "scope"},
		{apikeys.NewKey{Name: "a", Scope: apikeys.ScopeRep, RepID: "nope", Access: apikeys.AccessRead}, "rep_id"},
		{apikeys.NewKey{Name: "a", Scope: apikeys.ScopeRep, RepID: f.admin.ID.String(), Access: apikeys.AccessRead}, "rep_id"},
	}
	for _, c := range cases {
		_, _, err := f.svc.Create(ctx, f.admin, c.in)
		fields, ok := apperr.FieldsOf(err)
		if !ok || fields[c.field] == "" {
			t.Errorf("%+v: %v", c.in, err)
		}
	}
	if _, _, err := f.svc.Create(ctx, f.rep, apikeys.NewKey{Name: "a", Scope: apikeys.ScopeReseller, Access: apikeys.AccessRead}); apperr.KindOf(err) != apperr.KindForbidden {
		t.Fatalf("a rep creating a key: %v", err)
	}
}

// An entry written while a request acts through a key names the key in the history,
// whatever the use case passed as the person.
func TestAuditNamesTheActingKey(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	k, _, err := f.svc.Create(ctx, f.admin, apikeys.NewKey{Name: "Salon Pro", Scope: apikeys.ScopeRep, RepID: f.rep.ID.String(), Access: apikeys.AccessWrite})
	if err != nil {
		t.Fatal(err)
	}
	subject := audit.Message(uuid.New())
	acting := audit.WithAPIKey(ctx, k.ID)
	if err := audit.Record(acting, f.db.Pool, audit.Event{Subject: subject, Actor: audit.ActorOf(f.rep), Action: audit.ActionMessageLinkViewed, At: f.now}); err != nil {
		t.Fatal(err)
	}
	if err := audit.RecordAll(acting, f.db.Pool, audit.Event{Subject: subject, Actor: audit.ActorOf(f.rep), Action: audit.ActionMessageLinkViewed, At: f.now.Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	if err := audit.Record(ctx, f.db.Pool, audit.Event{Subject: subject, Actor: audit.ActorOf(f.rep), Action: audit.ActionMessageLinkViewed, At: f.now.Add(2 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	h, err := audit.History(ctx, f.db.Pool, subject, 10)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, e := range h {
		got = append(got, e.Actor)
	}
	if strings.Join(got, "|") != "Rita|API key “Salon Pro”|API key “Salon Pro”" {
		t.Fatalf("actors %q", got)
	}
	var rep uuid.UUID
	if err := f.db.Pool.QueryRow(ctx, `SELECT actor_id FROM audit_events WHERE actor_key_id = $1 LIMIT 1`, k.ID).Scan(&rep); err != nil || rep != f.rep.ID {
		t.Fatalf("actor_id %v, %v", rep, err)
	}
}
