package auth_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/auth"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/testutil/apptest"
)

// outboxLink finds the link of a held message on its outbox page.
var outboxLink = regexp.MustCompile(`id="outbox-link" type="text" readonly value="([^"]+)"`)

// invite has the admin invite address and returns the link of the e-mail that
// waits in the outbox.
func invite(t *testing.T, env *apptest.Env, admin *apptest.Client, address string) string {
	t.Helper()
	admin.Get("/admin/users")
	res := admin.PostForm("/admin/users", url.Values{"email": {address}, "name": {"Ines Vite"}, "role": {"sales_rep"}, "invite": {"email"}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("invite: %d\n%s", res.Status, res.Body)
	}
	var text, kind, id string
	err := env.DB.Pool.QueryRow(context.Background(),
		"SELECT text_body, kind, id::text FROM mail_outbox WHERE to_address = $1 ORDER BY created_at DESC LIMIT 1", address).Scan(&text, &kind, &id)
	if err != nil || kind != "invitation" {
		t.Fatalf("no invitation in the outbox for %s: %v (kind %q)", address, err, kind)
	}
	if strings.Contains(text, "/invite/") {
		t.Fatalf("the outbox keeps the invitation link readable:\n%s", text)
	}
	// Held (no SMTP server), the admin reads the link on the outbox page.
	testutil.Eventually(t, 10*time.Second, "the invitation held", func() (bool, string) {
		var status string
		_ = env.DB.Pool.QueryRow(context.Background(), "SELECT status FROM mail_outbox WHERE id = $1", id).Scan(&status)
		return status == "held", status
	})
	page := admin.Get("/admin/outbox/" + id)
	link := ""
	if m := outboxLink.FindStringSubmatch(page.Body); m != nil {
		link = html.UnescapeString(m[1])
	}
	text = page.Body
	if !strings.HasPrefix(link, env.URL+"/invite/") {
		t.Fatalf("invitation link %q does not point at the portal %s:\n%s", link, env.URL, text)
	}
	return strings.TrimPrefix(link, env.URL)
}

func TestInvitedUserChoosesTheirPasswordOnce(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	_, pw := env.CreateUser(t, "admin@example.com", models.RoleAdmin)
	admin := env.Client(t)
	admin.Login("admin@example.com", pw)
	path := invite(t, env, admin, "ines@example.com")

	guest := env.Client(t)
	if res := guest.Get(path); res.Status != http.StatusOK || !strings.Contains(res.Body, "ines@example.com") {
		t.Fatalf("invitation page: %d", res.Status)
	}
	weak := guest.PostForm(path, url.Values{"new_password": {"short"}, "confirm_password": {"short"}})
	if weak.Status != http.StatusUnprocessableEntity || !strings.Contains(weak.Body, "Use at least 12 characters.") {
		t.Fatalf("weak password: %d", weak.Status)
	}
	ok := guest.PostForm(path, url.Values{"new_password": {"a long and private phrase"}, "confirm_password": {"a long and private phrase"}})
	if ok.Status != http.StatusSeeOther || ok.Location != "/" {
		t.Fatalf("accept: %d %s\n%s", ok.Status, ok.Location, ok.Body)
	}
	if res := guest.Get("/"); res.Status != http.StatusOK {
		t.Fatalf("signed in after accepting: %d", res.Status)
	}
	env.Client(t).Login("ines@example.com", "a long and private phrase")

	// The link works once.
	again := env.Client(t)
	if res := again.Get(path); res.Status != http.StatusNotFound || !strings.Contains(res.Body, "was used already or has expired") {
		t.Fatalf("used link: %d", res.Status)
	}
	res := again.PostForm(path, url.Values{"new_password": {"another long phrase here"}, "confirm_password": {"another long phrase here"}})
	if res.Status != http.StatusNotFound {
		t.Fatalf("used link accepted a new password: %d", res.Status)
	}
}

// The first session after accepting an invitation shows times in the
// browser's zone: the zone app.js keeps in a cookie becomes the user's.
func TestInvitationSignInTakesTheBrowsersZone(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	_, pw := env.CreateUser(t, "admin@example.com", models.RoleAdmin)
	admin := env.Client(t)
	admin.Login("admin@example.com", pw)
	path := invite(t, env, admin, "kiran@example.com")

	guest := env.Client(t)
	guest.SetCookie(auth.BrowserZoneCookie, url.QueryEscape("Asia/Kathmandu"))
	guest.Get(path)
	ok := guest.PostForm(path, url.Values{"new_password": {"a long and private phrase"}, "confirm_password": {"a long and private phrase"}})
	if ok.Status != http.StatusSeeOther {
		t.Fatalf("accept: %d %s\n%s", ok.Status, ok.Location, ok.Body)
	}
	var zone string
	env.DB.Gorm.Raw("SELECT time_zone FROM users WHERE email = ?", "kiran@example.com").Scan(&zone)
	if zone != "Asia/Kathmandu" {
		t.Fatalf("zone after accepting the invitation: %q", zone)
	}
	res := guest.PostForm("/applications", nil)
	page := guest.Get(res.Location)
	if want := env.Clock.Now().In(mustZone(t, "Asia/Kathmandu")).Format("2006-01-02 15:04 MST"); !strings.Contains(page.Body, want) {
		t.Fatalf("the first session's page does not show %q", want)
	}
}

func TestInvitationExpiresAfter72Hours(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	_, pw := env.CreateUser(t, "admin@example.com", models.RoleAdmin)
	admin := env.Client(t)
	admin.Login("admin@example.com", pw)
	path := invite(t, env, admin, "late@example.com")
	env.Clock.Advance(72*time.Hour + time.Minute)
	if res := env.Client(t).Get(path); res.Status != http.StatusNotFound {
		t.Fatalf("expired link: %d", res.Status)
	}
	// Nobody knows a password of the invited account in the meantime.
	res := env.Client(t).PostForm("/login", url.Values{"email": {"late@example.com"}, "password": {""}})
	if res.Status != http.StatusUnauthorized {
		t.Fatalf("empty password: %d", res.Status)
	}
}

func TestInvitationOfAnExistingEmailIsRefusedAtTheField(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	_, pw := env.CreateUser(t, "admin@example.com", models.RoleAdmin)
	admin := env.Client(t)
	admin.Login("admin@example.com", pw)
	admin.Get("/admin/users")
	res := admin.PostForm("/admin/users", url.Values{"email": {"admin@example.com"}, "role": {"sales_rep"}, "invite": {"email"}})
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "A user with this e-mail address already exists.") {
		t.Fatalf("duplicate invite: %d", res.Status)
	}
	var n int
	_ = env.DB.Pool.QueryRow(context.Background(), "SELECT count(*) FROM user_invitations").Scan(&n)
	if n != 0 {
		t.Fatalf("%d invitations stored for a refused form", n)
	}
}
