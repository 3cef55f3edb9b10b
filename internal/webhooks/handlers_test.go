package webhooks_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/payportal/portal/internal/apikeys"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
)

var secretShown = regexp.MustCompile(`whsec_[A-Za-z0-9+/=]{40,}`)

// The pages, as an admin clicks through them: the form refuses bad input field by field
// (422, values kept), a new endpoint's secret shows once and never again, rotating shows
// the new one, deleting removes it; each is in the key's trail. A rep gets none of it,
// and a form without its CSRF token is refused.
func TestEndpointPages(t *testing.T) {
	env := apptest.New(t)
	admin, adminPW := env.CreateUser(t, "ada@example.com", models.RoleAdmin)
	rep, repPW := env.CreateUser(t, "rita@example.com", models.RoleSalesRep)
	key, _, err := env.App.APIKeys.Create(context.Background(), admin, apikeys.NewKey{Name: "Salon Pro", Scope: apikeys.ScopeRep,
		RepID: rep.ID.String(), Access: apikeys.AccessRead})
	if err != nil {
		t.Fatal(err)
	}
	c := env.Client(t)
	c.Login(admin.Email, adminPW)

	if res := c.Get("/admin/webhooks/new"); res.Status != http.StatusOK || !strings.Contains(res.Body, "Salon Pro") {
		t.Fatalf("form: %d", res.Status)
	}
	bad := c.PostForm("/admin/webhooks", url.Values{"url": {"hooks.example.com/x"}, "key_id": {"nope"}, "description": {"Line\none"}})
	if bad.Status != http.StatusUnprocessableEntity || !strings.Contains(bad.Body, "Enter a full address") ||
		!strings.Contains(bad.Body, "Choose the API key") || !strings.Contains(bad.Body, "Choose at least one event") ||
		!strings.Contains(bad.Body, `value="hooks.example.com/x"`) {
		t.Fatalf("bad form: %d\n%s", bad.Status, bad.Body)
	}

	made := c.PostForm("/admin/webhooks", url.Values{"url": {"http://127.0.0.1:9/hook"}, "key_id": {key.ID.String()},
		"events": {"application.boarded", "merchant.boarded"}})
	secret := secretShown.FindString(html.UnescapeString(made.Body))
	if made.Status != http.StatusOK || secret == "" || made.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("create: %d %q\n%s", made.Status, made.Header.Get("Cache-Control"), made.Body)
	}
	list, _ := env.App.Webhooks.List(context.Background())
	if len(list) != 1 || len(list[0].Events) != 2 {
		t.Fatalf("endpoints %+v", list)
	}
	page := "/admin/webhooks/" + list[0].ID.String()
	for _, p := range []string{"/admin/webhooks", page} {
		if res := c.Get(p); res.Status != http.StatusOK || secretShown.MatchString(html.UnescapeString(res.Body)) {
			t.Fatalf("%s shows a secret (%d)", p, res.Status)
		}
	}
	var sealed string
	if err := env.DB.Pool.QueryRow(context.Background(), `SELECT secret_sealed FROM webhook_endpoints`).Scan(&sealed); err != nil ||
		strings.Contains(sealed, strings.TrimPrefix(secret, "whsec_")) {
		t.Fatalf("the secret is not sealed at rest: %v", err)
	}

	rotated := c.PostForm(page+"/rotate", nil)
	if fresh := secretShown.FindString(html.UnescapeString(rotated.Body)); rotated.Status != http.StatusOK || fresh == "" || fresh == secret {
		t.Fatalf("rotate: %d", rotated.Status)
	}
	if res := c.PostForm(page, url.Values{"events": {"payment.approved"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("change events: %d\n%s", res.Status, res.Body)
	}
	if res := c.PostForm(page+"/disable", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("disable: %d", res.Status)
	}

	r := env.Client(t)
	r.Login(rep.Email, repPW)
	for _, p := range []string{"/admin/webhooks", page} {
		if res := r.Get(p); res.Status != http.StatusForbidden && res.Status != http.StatusNotFound {
			t.Errorf("a rep opens %s: %d", p, res.Status)
		}
	}
	if res := r.PostForm(page+"/delete", nil); res.Status != http.StatusForbidden && res.Status != http.StatusNotFound {
		t.Errorf("a rep deletes: %d", res.Status)
	}
	if res := c.PostFormNoToken(page+"/delete", nil); res.Status != http.StatusForbidden {
		t.Errorf("delete without the CSRF token: %d", res.Status)
	}
	if res := c.PostForm(page+"/delete", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.Status)
	}
	if res := c.Get(page); res.Status != http.StatusNotFound {
		t.Fatalf("deleted endpoint: %d", res.Status)
	}
	var actions []string
	rows, _ := env.DB.Pool.Query(context.Background(), `SELECT action FROM audit_events WHERE subject_id = $1 AND action LIKE 'webhook%' ORDER BY id`, key.ID)
	for rows.Next() {
		var a string
		_ = rows.Scan(&a)
		actions = append(actions, a)
	}
	want := "webhook_endpoint_created webhook_secret_rotated webhook_endpoint_changed webhook_endpoint_disabled webhook_endpoint_deleted"
	if strings.Join(actions, " ") != want {
		t.Fatalf("trail %v", actions)
	}
}
