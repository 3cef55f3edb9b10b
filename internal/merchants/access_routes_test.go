package merchants_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/merchants"
	"github.com/payportal/portal/internal/testutil/apptest"
)

// route is one merchant route with a request that would succeed for someone
// allowed to make it.
type route struct {
	name, method, path string
	form               url.Values
	// who may: "any" (anyone who sees the merchant), "staff" (admins and the
	// owning rep), "admin".
	who string
}

// merchantRoutes are every route of a merchant.
func merchantRoutes(id, locID, memberID uuid.UUID) []route {
	base := "/merchants/" + id.String()
	return []route{
		{"page", http.MethodGet, base, nil, "any"},
		{"payment account", http.MethodPost, base + "/payments", url.Values{"oid": {"OID-1"}, "token": {"a-token-long-enough-to-pass"}}, "admin"},
		{"test payments", http.MethodPost, base + "/payments/test", nil, "staff"},
		{"terminal key", http.MethodPost, base + "/terminals", url.Values{"api_key": {"an-api-key-123"}}, "admin"},
		{"test terminals", http.MethodPost, base + "/terminals/test", nil, "staff"},
		{"add location", http.MethodPost, base + "/locations", url.Values{"location_id": {"NEW-LOC-" + uuid.NewString()[:4]}, "location_name": {"Back room"}}, "admin"},
		{"change location", http.MethodPost, base + "/locations/" + locID.String(), url.Values{"location_name": {"Front"}, "test_mode": {"on"}}, "admin"},
		{"fetch again", http.MethodPost, base + "/fetch", nil, "admin"},
		{"invite", http.MethodPost, base + "/members", url.Values{"email": {"new-" + uuid.NewString()[:8] + "@merchant.example"}}, "staff"},
		{"permissions", http.MethodPost, base + "/members/" + memberID.String(), url.Values{"permissions": {"view_only"}}, "staff"},
		{"suspend", http.MethodPost, base + "/suspend", url.Values{"reason": {"check"}}, "admin"},
		{"resume", http.MethodPost, base + "/resume", nil, "admin"},
		{"alert", http.MethodPost, base + "/alert", url.Values{"decision": {"keep"}}, "admin"},
		{"remove location", http.MethodPost, base + "/locations/" + locID.String() + "/remove", nil, "admin"},
		{"remove member", http.MethodPost, base + "/members/" + memberID.String() + "/remove", nil, "staff"},
	}
}

func do(c *apptest.Client, r route) apptest.Response {
	if r.method == http.MethodGet {
		return c.Get(r.path)
	}
	return c.PostForm(r.path, r.form)
}

// Every merchant route, for every role: admins may do everything; the owning
// rep what staff may (403 for the admins' part); another rep, a merchant
// user of another merchant and an unknown merchant get 404 (the answer tells
// nothing); a merchant user of this merchant, with every permission or
// none, may look (200) and manage nothing (403); nobody signed in is sent to
// sign in. Nothing a refused request asked for happened.
func TestEveryMerchantRouteForEveryRole(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	id, _, _ := w.boarded(t, w.rep, "Blue Fern")
	otherID, _, _ := w.boarded(t, w.other, "Zephyr Bikes")
	var all []merchants.Permission
	for _, p := range merchants.AllPermissions() {
		all = append(all, p.Permission)
	}
	full, _, fullC := w.member(t, id, "full@bluefern.example", all...)
	none, _, noneC := w.member(t, id, "none@bluefern.example")
	_, _, strangerC := w.member(t, otherID, "staff@zephyr.example", all...)
	anonymous := w.env.Client(t)
	w.adminC.Get("/merchants/" + id.String())
	w.adminC.PostForm("/merchants/"+id.String()+"/locations", url.Values{"location_id": {"LOC-1"}, "location_name": {"Main"}})
	locs := w.count(t, `SELECT count(*) FROM merchant_locations WHERE merchant_id = $1`, id)
	if locs != 1 {
		t.Fatalf("%d locations", locs)
	}
	var locID uuid.UUID
	must(t, w.env.DB.Pool.QueryRow(t.Context(), `SELECT id FROM merchant_locations WHERE merchant_id = $1`, id).Scan(&locID))
	before := w.count(t, `SELECT count(*) FROM audit_events WHERE subject_id = $1`, id)

	refused := []struct {
		name   string
		c      *apptest.Client
		status func(r route) int
	}{
		{"another rep", w.otherC, func(route) int { return http.StatusNotFound }},
		{"a merchant user of another merchant", strangerC, func(route) int { return http.StatusNotFound }},
		{"a member with every permission", fullC, func(r route) int {
			if r.who == "any" {
				return http.StatusOK
			}
			return http.StatusForbidden
		}},
		{"a member without permissions", noneC, func(r route) int {
			if r.who == "any" {
				return http.StatusOK
			}
			return http.StatusForbidden
		}},
		{"the owning rep, on admins' routes", w.repC, func(r route) int {
			if r.who == "admin" {
				return http.StatusForbidden
			}
			return 0 // checked below
		}},
	}
	for _, rc := range refused {
		rc.c.Get("/merchants")
		for _, r := range merchantRoutes(id, locID, full.ID) {
			want := rc.status(r)
			if want == 0 {
				continue
			}
			res := do(rc.c, r)
			if res.Status != want {
				t.Errorf("%s: %s (%s %s) = %d, want %d", rc.name, r.name, r.method, r.path, res.Status, want)
			}
			if want == http.StatusNotFound && strings.Contains(res.Body, "Blue Fern") {
				t.Errorf("%s: %s tells the merchant's name", rc.name, r.name)
			}
		}
	}
	if after := w.count(t, `SELECT count(*) FROM audit_events WHERE subject_id = $1`, id); after != before {
		t.Errorf("refused requests changed the merchant: %d trail entries, before %d", after, before)
	}
	if w.merchant(t, id).Suspended() || w.count(t, `SELECT count(*) FROM merchant_payment_accounts`) != 0 {
		t.Error("a refused request changed something")
	}
	// An unknown or malformed merchant is the same 404.
	for _, path := range []string{"/merchants/" + uuid.NewString(), "/merchants/not-a-uuid", "/merchants/" + uuid.NewString() + "/suspend"} {
		res := w.adminC.Get(path)
		if strings.HasSuffix(path, "/suspend") {
			res = w.adminC.PostForm(path, nil)
		}
		if res.Status != http.StatusNotFound {
			t.Errorf("%s: %d", path, res.Status)
		}
	}
	// Nobody signed in is sent to sign in.
	for _, r := range merchantRoutes(id, locID, full.ID) {
		res := do(anonymous, r)
		if (r.method == http.MethodGet && (res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Location, "/login"))) ||
			(r.method == http.MethodPost && res.Status != http.StatusUnauthorized) {
			t.Errorf("anonymous: %s = %d %s", r.name, res.Status, res.Location)
		}
	}

	// The owning rep, then an admin, may do their part (each request works or
	// says why not in words: 409 when nothing is there to test).
	for _, rc := range []struct {
		name   string
		c      *apptest.Client
		may    []string
		member uuid.UUID
	}{{"the owning rep", w.repC, []string{"any", "staff"}, none.ID}, {"an admin", w.adminC, []string{"any", "staff", "admin"}, full.ID}} {
		rc.c.Get("/merchants/" + id.String())
		for _, r := range merchantRoutes(id, locID, rc.member) {
			if !slices.Contains(rc.may, r.who) {
				continue
			}
			res := do(rc.c, r)
			ok := []int{http.StatusOK, http.StatusSeeOther, http.StatusConflict}
			if !slices.Contains(ok, res.Status) {
				t.Errorf("%s: %s = %d\n%s", rc.name, r.name, res.Status, res.Body)
			}
		}
	}
}

// A merchant user sees only their merchant(s): never an application, its
// personal data or notes, the dashboard of applications or an admin page.
// Their home is their merchant, or a chooser when they have several.
func TestMerchantUserSeesOnlyTheirMerchant(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	id, appID, _ := w.boarded(t, w.rep, "Blue Fern")
	clerk, _, c := w.member(t, id, "clerk@bluefern.example", merchants.PermTakePayments)

	if res := c.Get("/"); res.Status != http.StatusSeeOther || res.Location != "/merchants" {
		t.Errorf("home: %d %s", res.Status, res.Location)
	}
	if res := c.Get("/merchants"); res.Status != http.StatusSeeOther || res.Location != "/merchants/"+id.String() {
		t.Errorf("one merchant: %d %s, want straight to it", res.Status, res.Location)
	}
	page := c.Get("/merchants/" + id.String())
	if page.Status != http.StatusOK || !strings.Contains(page.Body, "Take payments") {
		t.Fatalf("merchant page: %d", page.Status)
	}
	for _, secret := range []string{"12-3456789", "Internal note", "jane@bluefern", "Sales rep", "People of the merchant", "History", "/applications/"} {
		if strings.Contains(page.Body, secret) {
			t.Errorf("the merchant user's page shows %q", secret)
		}
	}
	a := appID.String()
	for _, r := range []route{
		{"application", http.MethodGet, "/applications/" + a, nil, ""},
		{"checklist", http.MethodGet, "/applications/" + a + "/checklist", nil, ""},
		{"history", http.MethodGet, "/applications/" + a + "/history", nil, ""},
		{"documents", http.MethodGet, "/applications/" + a + "/documents", nil, ""},
		{"progress", http.MethodGet, "/applications/" + a + "/progress", nil, ""},
		{"new application", http.MethodPost, "/applications", nil, ""},
		{"save", http.MethodPost, "/applications/" + a + "/sections/notes", url.Values{"notes": {"x"}, "version": {"1"}}, ""},
		{"reveal", http.MethodPost, "/applications/" + a + "/reveal", url.Values{"field": {"business.tin"}}, ""},
		{"submit", http.MethodPost, "/applications/" + a + "/submit", nil, ""},
		{"resend", http.MethodPost, "/applications/" + a + "/handoff/resend", nil, ""},
		{"upload", http.MethodPost, "/applications/" + a + "/documents", nil, ""},
	} {
		if res := do(c, r); res.Status != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", r.name, res.Status)
		}
	}
	for _, path := range []string{"/admin/users", "/admin/pricing", "/admin/outbox", "/admin/webhooks"} {
		if res := c.Get(path); res.Status != http.StatusForbidden {
			t.Errorf("%s: %d", path, res.Status)
		}
	}
	if res := c.Get("/account/security"); res.Status != http.StatusOK {
		t.Errorf("their own security page: %d", res.Status)
	}
	// A second merchant: the home becomes a chooser.
	id2, _, _ := w.boarded(t, w.other, "Tartan Teas")
	w.otherC.Get("/merchants/" + id2.String())
	if res := w.otherC.PostForm("/merchants/"+id2.String()+"/members", url.Values{"email": {"clerk@bluefern.example"}, "permissions": {"view_only"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("the other rep adds the clerk: %d\n%s", res.Status, res.Body)
	}
	list := c.Get("/merchants")
	if list.Status != http.StatusOK || !strings.Contains(list.Body, "Blue Fern") || !strings.Contains(list.Body, "Tartan Teas") || !strings.Contains(list.Body, "Choose a merchant") {
		t.Errorf("chooser: %d\n%s", list.Status, list.Body)
	}
	// The staff's dashboard does not list merchant users as owners.
	if body := w.adminC.Get("/").Body; strings.Contains(body, clerk.ID.String()) || !strings.Contains(body, w.other.ID.String()) {
		t.Error("a merchant user is offered as an application owner")
	}
}
