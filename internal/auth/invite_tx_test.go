package auth_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
)

// Inviting a user from Admin → Users is one transaction: the account, its invitation,
// the audit entry and the e-mail. When the last of them fails (the outbox refuses the
// message), the first ones are gone too, and the same invitation works once the
// outbox does.
func TestInvitingAUserIsOneTransaction(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	ctx := context.Background()
	_, adminC := env.SignedIn(t, "admin@example.com", models.RoleAdmin)
	exec := func(sql string) {
		t.Helper()
		if _, err := env.DB.Pool.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	exec(`CREATE FUNCTION refuse_mail() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'planned failure: the outbox refuses'; END $$`)
	exec(`CREATE TRIGGER refuse_mail BEFORE INSERT ON mail_outbox FOR EACH ROW EXECUTE FUNCTION refuse_mail()`)
	count := func() (n [4]int) {
		t.Helper()
		err := env.DB.Pool.QueryRow(ctx, `SELECT
			(SELECT count(*) FROM users WHERE email = 'sam@example.com'),
			(SELECT count(*) FROM user_invitations i JOIN users u ON u.id::text = i.user_id::text WHERE u.email = 'sam@example.com'),
			(SELECT count(*) FROM audit_events WHERE action = 'user_invited'),
			(SELECT count(*) FROM mail_outbox WHERE to_address = 'sam@example.com')`).Scan(&n[0], &n[1], &n[2], &n[3])
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	invite := url.Values{"email": {"sam@example.com"}, "name": {"Sam"}, "role": {"sales_rep"}, "invite": {"email"}}
	adminC.Get("/admin/users")
	if res := adminC.PostForm("/admin/users", invite); res.Status != http.StatusInternalServerError {
		t.Fatalf("invite while the outbox refuses: %d", res.Status)
	}
	if n := count(); n != [4]int{} {
		t.Fatalf("after the failed invitation: %d users, %d invitations, %d audit entries, %d e-mails left behind", n[0], n[1], n[2], n[3])
	}
	exec(`DROP TRIGGER refuse_mail ON mail_outbox`)
	adminC.Get("/admin/users")
	if res := adminC.PostForm("/admin/users", invite); res.Status != http.StatusSeeOther {
		t.Fatalf("invite again: %d\n%s", res.Status, res.Body)
	}
	if n := count(); n != [4]int{1, 1, 1, 1} {
		t.Fatalf("after the invitation: %d users, %d invitations, %d audit entries, %d e-mails", n[0], n[1], n[2], n[3])
	}
}
