package imports_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
)

// A merchant's own user (role merchant) is not the reseller's staff: the import, the
// Insights and an application's reminders do not exist for them.
func TestMerchantUsersSeeNoneOfRepProductivity(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.WithoutWorkers())
	rep, c := rep(t, env, "importing.rep@example.com")
	_, path := upload(t, c, "", "f.csv", generate(2, 0).CSV)
	appID := uuid.New()
	if _, err := env.DB.Pool.Exec(context.Background(), `INSERT INTO applications (id, owner_id, dba) VALUES ($1, $2, 'Shop')`, appID, rep.ID); err != nil {
		t.Fatal(err)
	}
	u, pw := env.CreateUser(t, "till.operator@merchant.example", models.RoleSalesRep)
	if _, err := env.DB.Pool.Exec(context.Background(), `UPDATE users SET role = 'merchant' WHERE id = $1`, u.ID); err != nil {
		t.Fatal(err)
	}
	m := env.Client(t)
	m.Login(u.Email, pw)
	for _, p := range []string{"/imports", "/imports/template.csv", path, path + "/rejected.csv", "/insights", "/insights.csv",
		"/applications/" + appID.String() + "/reminders"} {
		if res := m.Get(p); res.Status != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", p, res.Status)
		}
	}
	for _, p := range []string{path + "/import", path + "/mapping", "/applications/" + appID.String() + "/reminders/pause"} {
		if res := m.PostForm(p, url.Values{}); res.Status != http.StatusNotFound {
			t.Errorf("POST %s: %d, want 404", p, res.Status)
		}
	}
	if res := m.Get("/admin/reminders"); res.Status != http.StatusForbidden {
		t.Errorf("GET /admin/reminders: %d, want 403", res.Status)
	}
}
