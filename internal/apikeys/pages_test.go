package apikeys_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
)

var secretPattern = regexp.MustCompile(`<code id="issued-secret">(ppk_[a-z2-7]{8}_[A-Za-z0-9_-]{43})</code>`)

// TestKeyPages: an admin creates a key on the page and sees its secret once, the list
// shows it, revoking it stops it; a rep may not open the page, and every form needs
// the CSRF token.
func TestKeyPages(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.WithoutWorkers())
	_, admin := env.SignedIn(t, "ada@example.com", models.RoleAdmin)
	rep, repC := env.SignedIn(t, "rita@example.com", models.RoleSalesRep)

	if res := admin.Get("/admin/api-keys"); res.Status != http.StatusOK || !strings.Contains(res.Body, "No API keys yet.") {
		t.Fatalf("empty list: %d", res.Status)
	}
	res := admin.PostForm("/admin/api-keys", url.Values{"name": {""}, "scope": {"rep"}, "rep_id": {""}, "access": {"read"}})
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, `id="key-name-error"`) || !strings.Contains(res.Body, `id="key-rep-error"`) {
		t.Fatalf("a refused form: %d", res.Status)
	}
	res = admin.PostForm("/admin/api-keys", url.Values{"name": {"Salon Pro"}, "scope": {"rep"}, "rep_id": {rep.ID.String()}, "access": {"write"}})
	m := secretPattern.FindStringSubmatch(res.Body)
	if res.Status != http.StatusOK || m == nil || res.Header.Get("Cache-Control") != "no-store" || !strings.Contains(res.Body, `data-copy-target="issued-secret"`) {
		t.Fatalf("create: %d, secret shown %v, cache %q", res.Status, m != nil, res.Header.Get("Cache-Control"))
	}
	secret := m[1]
	if _, err := env.App.APIKeys.Authenticate(t.Context(), secret); err != nil {
		t.Fatalf("the shown secret does not work: %v", err)
	}
	list := admin.Get("/admin/api-keys")
	if strings.Contains(list.Body, secret) || !strings.Contains(list.Body, "Sales rep: rita@example.com") || !strings.Contains(list.Body, `data-status="active"`) {
		t.Fatalf("the list shows the secret, or not the key:\n%s", list.Body)
	}
	keys, err := env.App.APIKeys.List(t.Context())
	if err != nil || len(keys) != 1 {
		t.Fatal(err)
	}
	path := "/admin/api-keys/" + keys[0].ID.String() + "/revoke"
	if res := admin.PostFormNoToken(path, url.Values{}); res.Status != http.StatusForbidden {
		t.Fatalf("revoke without the CSRF token: %d", res.Status)
	}
	if res := repC.PostForm(path, url.Values{}); res.Status != http.StatusForbidden && res.Status != http.StatusNotFound {
		t.Fatalf("a rep revoking: %d", res.Status)
	}
	if res := repC.Get("/admin/api-keys"); res.Status != http.StatusForbidden && res.Status != http.StatusNotFound {
		t.Fatalf("a rep on the page: %d", res.Status)
	}
	if res := admin.PostForm(path, url.Values{}); res.Status != http.StatusSeeOther {
		t.Fatalf("revoke: %d", res.Status)
	}
	if _, err := env.App.APIKeys.Authenticate(t.Context(), secret); err == nil {
		t.Fatal("a revoked key still works")
	}
	if list := admin.Get("/admin/api-keys"); !strings.Contains(list.Body, `data-status="revoked"`) {
		t.Fatal("the list does not show the revocation")
	}
}
