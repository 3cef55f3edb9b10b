package auth_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/testutil/apptest"
)

// rowOf returns the users page's row of email.
func rowOf(t *testing.T, body, email string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<tr data-user="` + regexp.QuoteMeta(email) + `">.*?</tr>`).FindString(body)
	if m == "" {
		t.Fatalf("no row of %s on the users page", email)
	}
	return m
}

// An invited person who has not chosen a password is shown as invited, not
// active, with a "Resend invitation" action that e-mails a fresh link; once
// they accept, they are active and the action is gone.
func TestUsersPageShowsPendingInvitationsWithResend(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	_, pw := env.CreateUser(t, "admin@example.com", models.RoleAdmin)
	c := env.Client(t)
	c.Login("admin@example.com", pw)
	c.Get("/admin/users")
	if res := c.PostForm("/admin/users", url.Values{"email": {"sam@example.com"}, "name": {"Sam"}, "role": {"sales_rep"}, "invite": {"email"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("invite: %d\n%s", res.Status, res.Body)
	}
	row := rowOf(t, c.Get("/admin/users").Body, "sam@example.com")
	if !strings.Contains(row, `data-status="invited"`) || strings.Contains(row, `data-status="active"`) || !strings.Contains(row, "Resend invitation") {
		t.Fatalf("an invited person's row should say Invited and offer a resend:\n%s", row)
	}
	if strings.Contains(row, "Reset password") {
		t.Errorf("an invited person has no password to reset:\n%s", row)
	}
	action := regexp.MustCompile(`action="(/admin/users/[^"]+/resend-invitation)"`).FindStringSubmatch(row)
	if action == nil {
		t.Fatalf("no resend form in\n%s", row)
	}
	if res := c.PostForm(action[1], nil); res.Status != http.StatusSeeOther {
		t.Fatalf("resend: %d\n%s", res.Status, res.Body)
	}
	testutil.Eventually(t, 5*time.Second, "two invitations to sam", func() (bool, string) {
		page, err := env.App.Outbox.List(context.Background(), mail.ListParams{PerPage: 50})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, m := range page.Messages {
			if m.To == "sam@example.com" && m.Kind == mail.KindInvitation {
				n++
			}
		}
		return n == 2, "messages to sam: " + strings.Repeat("x", n)
	})

	// Sam accepts the newest link: active, nothing to resend, and a resend posted anyway is refused on the page.
	sam, err := env.App.Auth.Users().ByEmail(context.Background(), "sam@example.com")
	if err != nil {
		t.Fatal(err)
	}
	token, _, err := env.App.Auth.ReInvite(context.Background(), nil, sam, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.App.Auth.AcceptInvitation(context.Background(), token, "Correct-horse-battery-staple-9", "Correct-horse-battery-staple-9"); err != nil {
		t.Fatal(err)
	}
	row = rowOf(t, c.Get("/admin/users").Body, "sam@example.com")
	if !strings.Contains(row, `data-status="active"`) || strings.Contains(row, "Resend invitation") {
		t.Fatalf("after accepting, the row should say Active without a resend:\n%s", row)
	}
	res := c.PostForm(action[1], nil)
	if res.Status != http.StatusConflict || !strings.Contains(res.Body, "already accepted their invitation") || !strings.Contains(res.Body, "<h1>Users</h1>") {
		t.Fatalf("resend after acceptance: %d\n%s", res.Status, res.Body)
	}
}

// An admin's own row offers no Deactivate; posted anyway, the answer is the
// users page with a plain message, not a bare error page.
func TestOwnRowOffersNoDeactivate(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	admin, pw := env.CreateUser(t, "admin@example.com", models.RoleAdmin)
	env.CreateUser(t, "rep@example.com", models.RoleSalesRep)
	c := env.Client(t)
	c.Login("admin@example.com", pw)
	page := c.Get("/admin/users").Body
	if own := rowOf(t, page, "admin@example.com"); strings.Contains(own, "/deactivate") {
		t.Errorf("the admin's own row offers Deactivate:\n%s", own)
	}
	if other := rowOf(t, page, "rep@example.com"); !strings.Contains(other, "/deactivate") {
		t.Errorf("another user's row should offer Deactivate:\n%s", other)
	}
	res := c.PostForm("/admin/users/"+admin.ID.String()+"/deactivate", nil)
	// The reason is told in words, not as the status code (the page's random ids
	// and tokens may hold "409", so only the problem itself is read).
	problem, _, _ := strings.Cut(res.Body[strings.Index(res.Body, `id="users-problem"`)+1:], "</p>")
	if res.Status != http.StatusConflict || !strings.Contains(res.Body, `id="users-problem"`) || !strings.Contains(problem, "You cannot deactivate your own account.") ||
		strings.Contains(problem, "409") {
		t.Fatalf("self-deactivate should answer the users page with the reason: %d\n%s", res.Status, res.Body)
	}
}
