package merchants_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/payportal/portal/internal/merchants"
)

// Inviting a person from a merchant's page is one transaction: the merchant user, the
// invitation, the membership, both audit entries and the e-mail. When the last write
// fails (the outbox refuses the message), nothing of the others is left behind — no
// merchant user without a membership — and the same invitation works once the outbox
// does. The same holds for a person invited before who never chose a password, whose
// fresh link is issued with the new membership.
func TestInvitingFromAMerchantPageIsOneTransaction(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	id, _, _ := w.boarded(t, w.rep, "Blue Fern")
	otherID, _, _ := w.boarded(t, w.rep, "Zephyr Bikes")
	exec := func(sql string) {
		t.Helper()
		if _, err := w.env.DB.Pool.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	refuseMail := func() {
		exec(`CREATE TRIGGER refuse_mail BEFORE INSERT ON mail_outbox FOR EACH ROW EXECUTE FUNCTION refuse_mail()`)
	}
	exec(`CREATE FUNCTION refuse_mail() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'planned failure: the outbox refuses'; END $$`)
	const email = "casey@bluefern.example"
	// users, invitations, memberships, audit entries (the user's and the merchant's), e-mails
	count := func() (n [5]int) {
		t.Helper()
		err := w.env.DB.Pool.QueryRow(ctx, `SELECT
			(SELECT count(*) FROM users WHERE email = $1),
			(SELECT count(*) FROM user_invitations i JOIN users u ON u.id::text = i.user_id::text WHERE u.email = $1),
			(SELECT count(*) FROM merchant_memberships m JOIN users u ON u.id = m.user_id WHERE u.email = $1),
			(SELECT count(*) FROM audit_events WHERE action IN ('user_invited', 'member_invited', 'invitation_resent')),
			(SELECT count(*) FROM mail_outbox WHERE to_address = $1)`, email).Scan(&n[0], &n[1], &n[2], &n[3], &n[4])
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	invite := func(merchantID string) int {
		t.Helper()
		w.adminC.Get("/merchants/" + merchantID)
		return w.adminC.PostForm("/merchants/"+merchantID+"/members",
			url.Values{"email": {email}, "name": {"Casey"}, "permissions": {string(merchants.PermViewOnly)}}).Status
	}

	refuseMail()
	if status := invite(id.String()); status != http.StatusInternalServerError {
		t.Fatalf("invite while the outbox refuses: %d", status)
	}
	if n := count(); n != [5]int{} {
		t.Fatalf("after the failed invitation: %d users, %d invitations, %d memberships, %d audit entries, %d e-mails left behind",
			n[0], n[1], n[2], n[3], n[4])
	}
	exec(`DROP TRIGGER refuse_mail ON mail_outbox`)
	if status := invite(id.String()); status != http.StatusSeeOther {
		t.Fatalf("invite again: %d", status)
	}
	want := [5]int{1, 1, 1, 2, 1}
	if n := count(); n != want {
		t.Fatalf("after the invitation: %d users, %d invitations, %d memberships, %d audit entries, %d e-mails", n[0], n[1], n[2], n[3], n[4])
	}

	// Casey never chose a password: a second merchant's invitation issues a fresh link.
	// When its e-mail fails, neither the link nor the membership stays.
	refuseMail()
	if status := invite(otherID.String()); status != http.StatusInternalServerError {
		t.Fatalf("invite to a second merchant while the outbox refuses: %d", status)
	}
	if n := count(); n != want {
		t.Fatalf("after the failed second invitation: %d users, %d invitations, %d memberships, %d audit entries, %d e-mails",
			n[0], n[1], n[2], n[3], n[4])
	}
}
