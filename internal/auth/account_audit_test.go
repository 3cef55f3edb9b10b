package auth_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
)

// trailEntry is one stored entry of a user's trail, as the test compares them.
type trailEntry struct {
	action, outcome, actor, address, details string
}

func trailOf(t *testing.T, env *apptest.Env, id uuid.UUID) []trailEntry {
	t.Helper()
	rows, err := env.DB.Pool.Query(context.Background(), `SELECT e.action, e.outcome, coalesce(u.email, 'the portal'),
			coalesce(host(e.client_address), 'none'), e.details::text
		FROM audit_events e LEFT JOIN users u ON u.id = e.actor_id
		WHERE e.subject_kind = 'user' AND e.subject_id = $1 ORDER BY e.id`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []trailEntry
	for rows.Next() {
		var e trailEntry
		if err := rows.Scan(&e.action, &e.outcome, &e.actor, &e.address, &e.details); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// Every change to an account lands on its trail, with who, whom, what, the outcome and
// the client address: an admin's invitation and its resend, the person accepting it,
// their password change (a wrong current password first), their two-step enrolment (a
// wrong code first), and an admin's role change, password reset, two-step reset,
// deactivation and reactivation. No entry holds the person's name or address. The
// admin's user page shows the trail; a rep may not see it.
func TestEveryAccountChangeIsAudited(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	ctx := context.Background()
	admin, adminC := env.SignedIn(t, "admin@example.com", models.RoleAdmin)
	_, repC := env.SignedIn(t, "rep@example.com", models.RoleSalesRep)
	post := func(c *apptest.Client, path string, form url.Values, want int) {
		t.Helper()
		if res := c.PostForm(path, form); res.Status != want {
			t.Fatalf("POST %s: %d, want %d\n%s", path, res.Status, want, res.Body)
		}
	}

	adminC.Get("/admin/users")
	post(adminC, "/admin/users", url.Values{"email": {"sam@example.com"}, "name": {"Sam Secretname"}, "role": {"sales_rep"}, "invite": {"email"}}, http.StatusSeeOther)
	sam, err := env.App.Auth.Users().ByEmail(ctx, "sam@example.com")
	if err != nil {
		t.Fatal(err)
	}
	base := "/admin/users/" + sam.ID.String()
	post(adminC, base+"/resend-invitation", nil, http.StatusSeeOther)

	// Sam accepts, then changes the password, then sets up two-step sign-in.
	samC := env.Client(t)
	link := env.InvitationLink(t, admin, "sam@example.com")
	samC.Get(link)
	first, second := "Correct-horse-battery-staple-1", "Correct-horse-battery-staple-2"
	post(samC, link, url.Values{"new_password": {first}, "confirm_password": {first}}, http.StatusSeeOther)
	samC.Get("/account/password")
	post(samC, "/account/password", url.Values{"current_password": {"not my password"}, "new_password": {second}, "confirm_password": {second}},
		http.StatusUnprocessableEntity)
	post(samC, "/account/password", url.Values{"current_password": {first}, "new_password": {second}, "confirm_password": {second}}, http.StatusSeeOther)
	samC.Get("/account/security/setup")
	post(samC, "/account/security/setup", url.Values{"code": {"not-a-code"}}, http.StatusUnprocessableEntity)
	fresh, err := env.App.Auth.Users().ByID(ctx, sam.ID)
	if err != nil {
		t.Fatal(err)
	}
	env.EnrolMFA(t, fresh) // through the service, as a job would: no request, no address

	// The admin's changes.
	adminC.Get(base)
	post(adminC, base+"/role", url.Values{"role": {"admin"}}, http.StatusSeeOther)
	post(adminC, base+"/reset-password", nil, http.StatusOK)
	post(adminC, base+"/reset-mfa", url.Values{"from": {"user"}}, http.StatusSeeOther)
	post(adminC, base+"/deactivate", nil, http.StatusSeeOther)
	post(adminC, base+"/reactivate", nil, http.StatusSeeOther)
	post(adminC, base+"/reactivate", nil, http.StatusSeeOther) // no change: nothing recorded

	const local = "127.0.0.1"
	want := []trailEntry{
		{"user_invited", "success", admin.Email, local, ""},
		{"invitation_resent", "success", admin.Email, local, ""},
		{"invitation_accepted", "success", sam.Email, local, ""},
		{"password_changed", "failure", sam.Email, local, ""},
		{"password_changed", "success", sam.Email, local, ""},
		{"mfa_enrolled", "failure", sam.Email, local, ""},
		{"mfa_enrolled", "success", sam.Email, "none", ""},
		{"role_changed", "success", admin.Email, local, ""},
		{"password_reset", "success", admin.Email, local, ""},
		{"mfa_reset", "success", admin.Email, local, ""},
		{"user_deactivated", "success", admin.Email, local, ""},
		{"user_reactivated", "success", admin.Email, local, ""},
	}
	got := trailOf(t, env, sam.ID)
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d: %+v", len(got), len(want), got)
	}
	for i, g := range got {
		w := want[i]
		if g.action != w.action || g.outcome != w.outcome || g.actor != w.actor || g.address != w.address {
			t.Errorf("entry %d: %+v, want %+v", i, g, w)
		}
		for _, personal := range []string{"Secretname", "sam@", first, second} {
			if strings.Contains(g.details, personal) {
				t.Errorf("entry %d keeps personal data or a secret: %s", i, g.details)
			}
		}
	}
	if !strings.Contains(got[7].details, `"from_role": "Sales rep"`) || !strings.Contains(got[7].details, `"to_role": "Admin"`) {
		t.Errorf("the role change: %s", got[7].details)
	}

	// An admin's account made with a generated password is recorded too.
	post(adminC, "/admin/users", url.Values{"email": {"gen@example.com"}, "name": {"Gen"}, "role": {"sales_rep"}}, http.StatusOK)
	gen, err := env.App.Auth.Users().ByEmail(ctx, "gen@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if g := trailOf(t, env, gen.ID); len(g) != 1 || g[0].action != "user_created" || g[0].actor != admin.Email || !strings.Contains(g[0].details, "Sales rep") {
		t.Errorf("the generated account's trail: %+v", g)
	}

	// The user page shows the trail, newest first, times in the viewer's zone.
	page := adminC.Get(base)
	if page.Status != http.StatusOK {
		t.Fatalf("the user page: %d", page.Status)
	}
	for _, want := range []string{`data-action="user_reactivated" data-outcome="success"`, `data-action="password_changed" data-outcome="failure"`,
		"tried to change the password: the current password typed was wrong", "changed the role from sales rep to admin",
		"<td data-label=\"From\">" + local + "</td>", `<time datetime="`} {
		if !strings.Contains(page.Body, want) {
			t.Errorf("the user page lacks %q", want)
		}
	}
	if strings.Index(page.Body, `data-action="user_reactivated"`) > strings.Index(page.Body, `data-action="user_invited"`) {
		t.Error("the trail is not newest first")
	}
	if res := repC.Get(base); res.Status != http.StatusForbidden {
		t.Errorf("a rep opened a user page: %d", res.Status)
	}
	repC.Get("/account/password")
	if res := repC.PostForm(base+"/role", url.Values{"role": {"admin"}}); res.Status != http.StatusForbidden {
		t.Errorf("a rep changed a role: %d", res.Status)
	}
}

// An admin cannot change their own role, nor a merchant user's; a role that is not
// staff is refused at its field. Nothing is recorded for a refusal.
func TestRoleChangesAreStaffOnly(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	admin, adminC := env.SignedIn(t, "admin@example.com", models.RoleAdmin)
	rep, _ := env.CreateUser(t, "rep@example.com", models.RoleSalesRep)
	adminC.Get("/admin/users/" + rep.ID.String())
	for path, form := range map[string]url.Values{
		"/admin/users/" + admin.ID.String() + "/role": {"role": {"sales_rep"}},
		"/admin/users/" + rep.ID.String() + "/role":   {"role": {"merchant"}},
	} {
		res := adminC.PostForm(path, form)
		if res.Status != http.StatusConflict && res.Status != http.StatusUnprocessableEntity {
			t.Errorf("POST %s %v: %d", path, form, res.Status)
		}
	}
	if res := adminC.PostForm("/admin/users/"+uuid.NewString()+"/role", url.Values{"role": {"admin"}}); res.Status != http.StatusNotFound {
		t.Errorf("an unknown user: %d", res.Status)
	}
	for _, id := range []uuid.UUID{admin.ID, rep.ID} {
		for _, e := range trailOf(t, env, id) {
			if e.action == "role_changed" {
				t.Errorf("a refused role change was recorded: %+v", e)
			}
		}
	}
}
