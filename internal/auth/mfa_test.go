package auth_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/auth"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
)

var secretPattern = regexp.MustCompile(`id="mfa-secret"[^>]*>([A-Z2-7 ]+)<`)

// An admin created without two-step sign-in must set it up at their next
// sign-in before they see any page; the code then guards every sign-in,
// each code works once, and a recovery code works once.
func TestAdminSetsUpTwoStepSignInAtFirstSignIn(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	ctx := context.Background()
	_, _, err := env.App.Auth.CreateUser(ctx, auth.NewUser{Email: "boss@example.com", Role: models.RoleAdmin, Password: "correct-horse-battery"})
	if err != nil {
		t.Fatal(err)
	}
	c := env.Client(t)
	c.Get("/login")
	res := c.PostForm("/login", url.Values{"email": {"boss@example.com"}, "password": {"correct-horse-battery"}})
	if res.Status != http.StatusSeeOther || res.Location != "/login/mfa/setup" {
		t.Fatalf("password step: %d → %q, want the set-up page", res.Status, res.Location)
	}
	// Half signed in is not signed in.
	if res := c.Get("/"); res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Location, "/login") {
		t.Fatalf("dashboard before the second step: %d → %q", res.Status, res.Location)
	}
	page := c.Get("/login/mfa/setup")
	m := secretPattern.FindStringSubmatch(page.Body)
	if page.Status != http.StatusOK || m == nil || !strings.Contains(page.Body, `src="data:image/png;base64,`) {
		t.Fatalf("set-up page: %d, secret %v\n%s", page.Status, m, page.Body)
	}
	secret := strings.ReplaceAll(m[1], " ", "")
	// The secret is kept sealed, never readable in the database.
	var stored string
	if err := env.DB.Gorm.Raw("SELECT mfa_secret FROM users WHERE email = 'boss@example.com'").Scan(&stored).Error; err != nil || stored == "" || strings.Contains(stored, secret) {
		t.Fatalf("stored secret %q (%v) must be sealed", stored, err)
	}
	res = c.PostForm("/login/mfa/setup", url.Values{"code": {"000000"}})
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "That code is not right") || !strings.Contains(res.Body, `aria-invalid="true"`) {
		t.Fatalf("wrong first code: %d\n%s", res.Status, res.Body)
	}
	code := auth.TOTPCode(secret, env.Clock.Now())
	res = c.PostForm("/login/mfa/setup", url.Values{"code": {code}})
	codes := regexp.MustCompile(`<li><code>([a-z2-9]{5}-[a-z2-9]{5})</code></li>`).FindAllStringSubmatch(res.Body, -1)
	if res.Status != http.StatusOK || len(codes) != 10 || res.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("recovery codes page: %d, %d codes, cache %q", res.Status, len(codes), res.Header.Get("Cache-Control"))
	}
	if res := c.Get("/"); res.Status != http.StatusOK {
		t.Fatalf("signed in after set-up: %d", res.Status)
	}

	// Next sign-in: the code page. The code just used is refused (replay);
	// the next step's code works.
	c2 := env.Client(t)
	c2.Get("/login")
	if res := c2.PostForm("/login", url.Values{"email": {"boss@example.com"}, "password": {"correct-horse-battery"}}); res.Location != "/login/mfa" {
		t.Fatalf("second sign-in goes to %q, want the code page", res.Location)
	}
	if res := c2.PostForm("/login/mfa", url.Values{"code": {code}}); res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("replayed code: %d, want 422", res.Status)
	}
	env.Clock.Advance(30 * time.Second)
	if res := c2.PostForm("/login/mfa", url.Values{"code": {auth.TOTPCode(secret, env.Clock.Now())}}); res.Status != http.StatusSeeOther || res.Location != "/" {
		t.Fatalf("fresh code: %d → %q", res.Status, res.Location)
	}

	// A recovery code signs in once.
	for i, want := range []int{http.StatusSeeOther, http.StatusUnprocessableEntity} {
		c3 := env.Client(t)
		c3.Get("/login")
		c3.PostForm("/login", url.Values{"email": {"boss@example.com"}, "password": {"correct-horse-battery"}})
		if res := c3.PostForm("/login/mfa", url.Values{"code": {strings.ToUpper(codes[0][1])}}); res.Status != want {
			t.Fatalf("recovery code, use %d: %d, want %d", i+1, res.Status, want)
		}
	}
}

// Wrong codes are throttled like wrong passwords.
func TestWrongCodesAreThrottled(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.WithThrottle(auth.ThrottleLimits{Window: 15 * time.Minute, PerAccount: 3, PerAddress: 20}))
	_, pw := env.CreateUser(t, "admin@example.com", models.RoleAdmin)
	c := env.Client(t)
	c.Get("/login")
	c.PostForm("/login", url.Values{"email": {"admin@example.com"}, "password": {pw}})
	for range 3 {
		c.PostForm("/login/mfa", url.Values{"code": {"123456"}})
	}
	res := c.PostForm("/login/mfa", url.Values{"code": {env.TOTP(t, "admin@example.com")()}})
	if res.Status != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" || !strings.Contains(res.Body, "Too many wrong codes") {
		t.Fatalf("after 3 wrong codes: %d\n%s", res.Status, res.Body)
	}
}

// A sales rep may turn two-step sign-in on and off; an admin may not turn it
// off; an admin can reset someone's, which ends their sessions.
func TestOptionalMFAForRepsAndResetByAdmin(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	_, adminPW := env.CreateUser(t, "admin@example.com", models.RoleAdmin)
	rep, repPW := env.CreateUser(t, "rep@example.com", models.RoleSalesRep)
	if rep.MFAEnabled() {
		t.Fatal("a rep gets no MFA unasked")
	}
	c := env.Client(t)
	c.Login("rep@example.com", repPW)
	page := c.Get("/account/security/setup")
	m := secretPattern.FindStringSubmatch(page.Body)
	if m == nil {
		t.Fatalf("rep set-up page:\n%s", page.Body)
	}
	secret := strings.ReplaceAll(m[1], " ", "")
	if res := c.PostForm("/account/security/setup", url.Values{"code": {auth.TOTPCode(secret, env.Clock.Now())}}); res.Status != http.StatusOK {
		t.Fatalf("rep turns MFA on: %d", res.Status)
	}
	env.Clock.Advance(30 * time.Second)
	if res := c.PostForm("/account/security/turn-off", url.Values{"code": {auth.TOTPCode(secret, env.Clock.Now())}}); res.Status != http.StatusSeeOther {
		t.Fatalf("rep turns MFA off: %d\n%s", res.Status, res.Body)
	}

	admin := env.Client(t)
	admin.Login("admin@example.com", adminPW)
	if res := admin.PostForm("/account/security/turn-off", url.Values{"code": {env.TOTP(t, "admin@example.com")()}}); res.Status != http.StatusConflict {
		t.Fatalf("admin turns MFA off: %d, want 409", res.Status)
	}
	other, otherPW := env.CreateUser(t, "second@example.com", models.RoleAdmin)
	oc := env.Client(t)
	oc.Login("second@example.com", otherPW)
	if res := admin.PostForm("/admin/users/"+other.ID.String()+"/reset-mfa", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("reset: %d", res.Status)
	}
	if res := oc.Get("/"); res.Status != http.StatusSeeOther {
		t.Fatalf("reset user's session still works: %d", res.Status)
	}
	oc.Get("/login")
	if res := oc.PostForm("/login", url.Values{"email": {"second@example.com"}, "password": {otherPW}}); res.Location != "/login/mfa/setup" {
		t.Fatalf("after a reset the admin sets up again, went to %q", res.Location)
	}
}

// People who must use MFA are signed out after 15 idle minutes, others after
// the configured 30; reading pages writes no session on every request.
func TestIdleLimitsPerRoleWithoutASessionWriteOnEveryRequest(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	_, adminPW := env.CreateUser(t, "admin@example.com", models.RoleAdmin)
	_, repPW := env.CreateUser(t, "rep@example.com", models.RoleSalesRep)
	admin, rep := env.Client(t), env.Client(t)
	admin.Login("admin@example.com", adminPW)
	rep.Login("rep@example.com", repPW)

	if res := rep.Get("/"); res.Header.Get("Set-Cookie") != "" {
		t.Fatalf("a page view within the minute wrote the session: %q", res.Header.Get("Set-Cookie"))
	}
	env.Clock.Advance(16 * time.Minute)
	if res := rep.Get("/"); res.Status != http.StatusOK {
		t.Fatalf("rep after 16 idle minutes: %d", res.Status)
	}
	res := admin.Get("/")
	if res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Location, "/login") {
		t.Fatalf("admin after 16 idle minutes: %d → %q", res.Status, res.Location)
	}
	if page := admin.Get("/login"); !strings.Contains(page.Body, "signed out after 15 minutes without activity") {
		t.Fatalf("sign-in page does not say why:\n%s", page.Body)
	}
	env.Clock.Advance(29 * time.Minute)
	if res := rep.Get("/"); res.Status != http.StatusOK {
		t.Fatalf("rep active 29 minutes ago: %d", res.Status)
	}
	env.Clock.Advance(31 * time.Minute)
	if res := rep.Get("/"); res.Status != http.StatusSeeOther {
		t.Fatalf("rep after 31 idle minutes: %d", res.Status)
	}
}

// Session tokens are stored only as hashes.
func TestSessionTokensAreStoredHashed(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	_, pw := env.CreateUser(t, "rep@example.com", models.RoleSalesRep)
	c := env.Client(t)
	c.Login("rep@example.com", pw)
	token := c.Cookie(auth.SessionCookieName)
	var raw, hashed int64
	env.DB.Gorm.Raw("SELECT count(*) FROM sessions WHERE token = ?", token).Scan(&raw)
	env.DB.Gorm.Raw("SELECT count(*) FROM sessions WHERE token = encode(sha256(convert_to(?, 'UTF8')), 'hex')", token).Scan(&hashed)
	if token == "" || raw != 0 || hashed != 1 {
		t.Fatalf("token %q: %d rows hold it raw, %d hashed", token, raw, hashed)
	}
}
