package auth_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/auth"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
)

func TestLoginSuccessShowsDashboard(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	_, pw := env.CreateUser(t, "rep@example.com", models.RoleSalesRep)
	c := env.Client(t)
	c.Get("/login")
	before := sessionCookie(t, env, c)
	c.Login("REP@example.com", pw)
	if after := sessionCookie(t, env, c); after == before || after == "" {
		t.Fatalf("session token was not renewed on sign-in")
	}
	res := c.Get("/")
	if res.Status != http.StatusOK || !strings.Contains(res.Body, "rep@example.com") {
		t.Fatalf("dashboard: %d\n%s", res.Status, res.Body)
	}
}

func TestLoginFailureNeverRevealsWhetherEmailExists(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	env.CreateUser(t, "rep@example.com", models.RoleSalesRep)
	for _, email := range []string{"rep@example.com", "nobody@example.com"} {
		res := env.Client(t).PostForm("/login", url.Values{"email": {email}, "password": {"wrong-password-123"}})
		if res.Status != http.StatusUnauthorized || !strings.Contains(res.Body, "The e-mail address or password is incorrect.") {
			t.Fatalf("%s: status %d\n%s", email, res.Status, res.Body)
		}
		if !strings.Contains(res.Body, `value="`+email+`"`) {
			t.Errorf("%s: typed e-mail not kept in the form", email)
		}
	}
}

func TestThrottlePerAccountAndPerAddress(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.WithThrottle(auth.ThrottleLimits{Window: 15 * time.Minute, PerAccount: 3, PerAddress: 5}))
	_, pw := env.CreateUser(t, "rep@example.com", models.RoleSalesRep)
	c := env.Client(t)
	for i := 0; i < 3; i++ {
		c.PostForm("/login", url.Values{"email": {"rep@example.com"}, "password": {"nope-nope-nope"}})
	}
	res := c.PostForm("/login", url.Values{"email": {"rep@example.com"}, "password": {pw}})
	if res.Status != http.StatusTooManyRequests || !strings.Contains(res.Body, "Too many failed sign-in attempts. Try again in 15 minutes.") {
		t.Fatalf("locked account: status %d\n%s", res.Status, res.Body)
	}
	if res.Header.Get("Retry-After") == "" {
		t.Error("no Retry-After header")
	}
	// An unknown e-mail is throttled exactly the same way.
	for i := 0; i < 2; i++ {
		c.PostForm("/login", url.Values{"email": {"ghost@example.com"}, "password": {"nope-nope-nope"}})
	}
	// Five failures from this address in all: the address is now blocked for every account.
	res = c.PostForm("/login", url.Values{"email": {"other@example.com"}, "password": {"whatever-123456"}})
	if res.Status != http.StatusTooManyRequests {
		t.Fatalf("address limit: status %d", res.Status)
	}
	env.Clock.Advance(16 * time.Minute)
	c.Login("rep@example.com", pw)
}

func TestLogoutEndsSession(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	_, pw := env.CreateUser(t, "rep@example.com", models.RoleSalesRep)
	c := env.Client(t)
	c.Login("rep@example.com", pw)
	c.Get("/")
	if res := c.PostForm("/logout", nil); res.Status != http.StatusSeeOther || res.Location != "/login" {
		t.Fatalf("logout: %d %s", res.Status, res.Location)
	}
	if res := c.Get("/"); res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Location, "/login") {
		t.Fatalf("after logout: %d %s", res.Status, res.Location)
	}
}

func TestDeactivatedUserLosesAccessImmediately(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	_, adminPW := env.CreateUser(t, "admin@example.com", models.RoleAdmin)
	rep, repPW := env.CreateUser(t, "rep@example.com", models.RoleSalesRep)
	admin := env.Client(t)
	admin.Login("admin@example.com", adminPW)
	repClient := env.Client(t)
	repClient.Login("rep@example.com", repPW)
	if res := repClient.Get("/"); res.Status != http.StatusOK {
		t.Fatalf("rep dashboard: %d", res.Status)
	}
	admin.Get("/admin/users")
	if res := admin.PostForm("/admin/users/"+rep.ID.String()+"/deactivate", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("deactivate: %d %s", res.Status, res.Body)
	}
	if res := repClient.Get("/"); res.Status != http.StatusSeeOther {
		t.Fatalf("deactivated rep still served: %d", res.Status)
	}
	res := env.Client(t).PostForm("/login", url.Values{"email": {"rep@example.com"}, "password": {repPW}})
	if res.Status != http.StatusUnauthorized {
		t.Fatalf("deactivated rep could sign in: %d", res.Status)
	}
}

func TestCSRFMissingOrWrongTokenIsRefusedAndChangesNothing(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	_, pw := env.CreateUser(t, "admin@example.com", models.RoleAdmin)
	c := env.Client(t)
	c.Login("admin@example.com", pw)
	c.Get("/admin/users")
	form := url.Values{"email": {"new@example.com"}, "role": {"sales_rep"}}
	if res := c.PostFormNoToken("/admin/users", form); res.Status != http.StatusForbidden {
		t.Fatalf("missing token: %d", res.Status)
	}
	form.Set("csrf_token", "forged")
	if res := c.PostForm("/admin/users", form); res.Status != http.StatusForbidden {
		t.Fatalf("wrong token: %d", res.Status)
	}
	res := c.Do(http.MethodPost, "/admin/users", strings.NewReader("email=new%40example.com&role=sales_rep"),
		http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "X-Csrf-Token": {"forged"}})
	if res.Status != http.StatusForbidden {
		t.Fatalf("wrong header token: %d", res.Status)
	}
	if _, err := env.App.Auth.Users().ByEmail(context.Background(), "new@example.com"); err == nil {
		t.Fatal("a refused request created a user")
	}
	// The same request with the page's token, in the header as htmx sends it, works.
	res = c.Do(http.MethodPost, "/admin/users", strings.NewReader("email=new%40example.com&role=sales_rep"),
		http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "X-Csrf-Token": {c.CSRF()}})
	if res.Status != http.StatusOK || !strings.Contains(res.Body, "new@example.com") {
		t.Fatalf("valid token: %d", res.Status)
	}
}

// Every route under /admin, including ones added later, must refuse a sales rep.
func TestSalesRepGets403OnEveryAdminRoute(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	_, pw := env.CreateUser(t, "rep@example.com", models.RoleSalesRep)
	c := env.Client(t)
	c.Login("rep@example.com", pw)
	c.Get("/")
	checked := 0
	for _, r := range env.App.Handler.Routes() {
		if !strings.HasPrefix(r.Path, "/admin") {
			continue
		}
		path := r.Path
		for _, seg := range strings.Split(r.Path, "/") {
			if strings.HasPrefix(seg, ":") {
				path = strings.Replace(path, seg, uuid.NewString(), 1)
			}
		}
		path = strings.ReplaceAll(path, "*", "x")
		res := c.Do(r.Method, path, strings.NewReader("csrf_token="+url.QueryEscape(c.CSRF())),
			http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "X-Csrf-Token": {c.CSRF()}})
		if res.Status != http.StatusForbidden {
			t.Errorf("%s %s: status %d, want 403", r.Method, r.Path, res.Status)
		}
		checked++
	}
	if checked < 5 {
		t.Fatalf("only %d admin routes found", checked)
	}
}

func TestAdminCreatesRepWhoMustChangeGeneratedPassword(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	_, pw := env.CreateUser(t, "admin@example.com", models.RoleAdmin)
	admin := env.Client(t)
	admin.Login("admin@example.com", pw)
	admin.Get("/admin/users")
	res := admin.PostForm("/admin/users", url.Values{"email": {"new.rep@example.com"}, "name": {"New Rep"}, "role": {"sales_rep"}})
	if res.Status != http.StatusOK {
		t.Fatalf("create: %d", res.Status)
	}
	generated := between(res.Body, `<code id="issued-password">`, "</code>")
	if generated == "" {
		t.Fatal("generated password not shown")
	}
	dup := admin.PostForm("/admin/users", url.Values{"email": {"NEW.rep@example.com"}, "role": {"sales_rep"}})
	if dup.Status != http.StatusUnprocessableEntity || !strings.Contains(dup.Body, "A user with this e-mail address already exists.") {
		t.Fatalf("duplicate: %d", dup.Status)
	}

	rep := env.Client(t)
	rep.Login("new.rep@example.com", generated)
	if res := rep.Get("/"); res.Status != http.StatusSeeOther || res.Location != "/account/password" {
		t.Fatalf("forced change: %d %s", res.Status, res.Location)
	}
	rep.Get("/account/password")
	bad := rep.PostForm("/account/password", url.Values{"current_password": {generated}, "new_password": {"short"}, "confirm_password": {"short"}})
	if bad.Status != http.StatusUnprocessableEntity || !strings.Contains(bad.Body, "Use at least 12 characters.") {
		t.Fatalf("weak password: %d", bad.Status)
	}
	ok := rep.PostForm("/account/password", url.Values{"current_password": {generated}, "new_password": {"a much better passphrase"}, "confirm_password": {"a much better passphrase"}})
	if ok.Status != http.StatusSeeOther {
		t.Fatalf("change: %d %s", ok.Status, ok.Body)
	}
	if res := rep.Get("/"); res.Status != http.StatusOK {
		t.Fatalf("after change: %d", res.Status)
	}
}

func TestAdminResetPasswordEndsSessions(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	_, pw := env.CreateUser(t, "admin@example.com", models.RoleAdmin)
	rep, repPW := env.CreateUser(t, "rep@example.com", models.RoleSalesRep)
	repClient := env.Client(t)
	repClient.Login("rep@example.com", repPW)
	admin := env.Client(t)
	admin.Login("admin@example.com", pw)
	admin.Get("/admin/users")
	res := admin.PostForm("/admin/users/"+rep.ID.String()+"/reset-password", nil)
	if res.Status != http.StatusOK || between(res.Body, `<code id="issued-password">`, "</code>") == "" {
		t.Fatalf("reset: %d", res.Status)
	}
	if res := repClient.Get("/"); res.Status != http.StatusSeeOther {
		t.Fatalf("old session survived a reset: %d", res.Status)
	}
}

func TestAdminCannotDeactivateSelf(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	admin, pw := env.CreateUser(t, "admin@example.com", models.RoleAdmin)
	c := env.Client(t)
	c.Login("admin@example.com", pw)
	c.Get("/admin/users")
	res := c.PostForm("/admin/users/"+admin.ID.String()+"/deactivate", nil)
	if res.Status != http.StatusConflict || !strings.Contains(res.Body, "You cannot deactivate your own account.") {
		t.Fatalf("self-deactivate: %d", res.Status)
	}
}

func TestUnknownPageIs404WithoutInternals(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	res := env.Client(t).Get("/no/such/page")
	if res.Status != http.StatusNotFound || strings.Contains(res.Body, "goroutine") || !strings.Contains(res.Body, "Not Found") {
		t.Fatalf("404 page: %d\n%s", res.Status, res.Body)
	}
}

func sessionCookie(t *testing.T, env *apptest.Env, c *apptest.Client) string {
	t.Helper()
	return c.Cookie(auth.SessionCookieName)
}

func between(s, start, end string) string {
	i := strings.Index(s, start)
	if i < 0 {
		return ""
	}
	s = s[i+len(start):]
	j := strings.Index(s, end)
	if j < 0 {
		return ""
	}
	return s[:j]
}

func TestOldLoginFailuresArePruned(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	c := env.Client(t)
	c.PostForm("/login", url.Values{"email": {"someone@example.com"}, "password": {"wrong-password-1"}})
	env.Clock.Advance(time.Hour)
	c.PostForm("/login", url.Values{"email": {"someone@example.com"}, "password": {"wrong-password-2"}})
	n, err := auth.PruneLoginFailures(context.Background(), env.DB.Gorm, env.Clock.Now().Add(23*time.Hour+30*time.Minute))
	if err != nil || n != 1 {
		t.Fatalf("pruned %d (%v), want only the failure older than a day", n, err)
	}
	var left int64
	env.DB.Gorm.Raw("SELECT count(*) FROM login_failures").Scan(&left)
	if left != 1 {
		t.Fatalf("%d failures left, want 1", left)
	}
}

// After sign-in the portal only ever redirects to its own pages.
func TestLoginRedirectStaysOnThisSite(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	_, pw := env.CreateUser(t, "rep@example.com", models.RoleSalesRep)
	for next, want := range map[string]string{
		"/applications?x=1":     "/applications?x=1",
		"//evil.example/phish":  "/",
		"https://evil.example/": "/",
		"/\\evil.example":       "/",
		"javascript:alert(1)":   "/",
		"":                      "/",
	} {
		c := env.Client(t)
		c.Get("/login")
		res := c.PostForm("/login", url.Values{"email": {"rep@example.com"}, "password": {pw}, "next": {next}})
		if res.Status != http.StatusSeeOther || res.Location != want {
			t.Errorf("next=%q: %d %q, want %q", next, res.Status, res.Location, want)
		}
	}
}
