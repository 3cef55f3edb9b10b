package merchants_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/merchants"
	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/testutil/apptest"
	"github.com/payportal/portal/internal/testutil/smtpserver"
)

// secretLinkPattern finds a secret link in a delivered e-mail: a tracked hand-off link
// (/l/<token>) or an invitation (/invite/<token>).
var secretLinkPattern = regexp.MustCompile(`/(l|invite)/([A-Za-z0-9_-]{20,})`)

// Every kind of e-mail that carries a secret link — the hand-off by the push, the rep's
// resend, the merchant's reminder, an admin's copy from the outbox, the invitations of
// Admin → Users (and their resend) and of a merchant's page (a new person, and a person
// invited before who never chose a password) — reaches the merchant or the person with
// its link, and leaves no trace of the link's token readable in the outbox or the job
// queue: every column of every row is searched.
func TestNoSecretLinkIsStoredReadable(t *testing.T) {
	t.Parallel()
	srv := smtpserver.Start(t)
	w := newWorld(t, apptest.WithSandbox(nil),
		apptest.WithEnv("PORTAL_SMTP_HOST", srv.Host), apptest.WithEnv("PORTAL_SMTP_PORT", srv.PortString()),
		apptest.WithEnv("PORTAL_SMTP_TLS", "none"), apptest.WithEnv("PORTAL_SMTP_FROM", "Onboarding <onboarding@reseller.test>"))
	ctx := context.Background()
	sent := 0
	expect := func(what string, res apptest.Response) {
		t.Helper()
		if res.Status != http.StatusSeeOther {
			t.Fatalf("%s: %d\n%s", what, res.Status, res.Body)
		}
		sent++
	}

	// The hand-off, its resend by the rep and, three days on, the reminder.
	appID, upID := handOff(t, w, "Blue Fern")
	sent++
	w.repC.Get("/applications/" + appID.String())
	expect("resend the hand-off", w.repC.PostForm("/applications/"+appID.String()+"/handoff/resend", nil))
	w.env.Clock.Advance(3*24*time.Hour + time.Minute)
	if _, err := w.env.App.Reminders.Run(ctx); err != nil {
		t.Fatal(err)
	}
	sent++
	// Three days without a request ended the sessions.
	w.adminC.Login(w.admin.Email, w.adminPW)
	w.repC.Login(w.rep.Email, w.repPW)
	acceptAndBoard(t, w, appID, upID)
	var merchantID uuid.UUID
	testutil.Eventually(t, 20*time.Second, "the merchant", func() (bool, string) {
		id, ok, err := w.env.App.Merchants.Store().IDOfApplication(ctx, appID)
		must(t, err)
		merchantID = id
		return ok, "not boarded yet"
	})
	otherMerchant, _, _ := w.boarded(t, w.rep, "Zephyr Bikes")

	// The merchant pages: a new person, then the same person (who never chose a
	// password) invited to a second merchant, which sends a fresh link.
	for _, id := range []uuid.UUID{merchantID, otherMerchant} {
		w.adminC.Get("/merchants/" + id.String())
		expect("invite from the merchant page", w.adminC.PostForm("/merchants/"+id.String()+"/members",
			url.Values{"email": {"casey@bluefern.example"}, "name": {"Casey"}, "permissions": {string(merchants.PermViewOnly)}}))
	}

	// Admin → Users: an invitation, and its resend.
	w.adminC.Get("/admin/users")
	expect("invite a colleague", w.adminC.PostForm("/admin/users", url.Values{"email": {"sam@reseller.example"}, "name": {"Sam"},
		"role": {"sales_rep"}, "invite": {"email"}}))
	sam, err := w.env.App.Auth.Users().ByEmail(ctx, "sam@reseller.example")
	must(t, err)
	expect("resend the invitation", w.adminC.PostForm("/admin/users/"+sam.ID.String()+"/resend-invitation", nil))

	// An admin sends the first hand-off e-mail again from the outbox.
	handoffs := w.outbox(t, "handoff")
	if len(handoffs) == 0 {
		t.Fatal("no hand-off e-mail in the outbox")
	}
	w.adminC.Get("/admin/outbox/" + handoffs[0].ID.String())
	expect("resend from the outbox", w.adminC.PostForm("/admin/outbox/"+handoffs[0].ID.String()+"/resend", nil))

	// Every one of them was delivered with its link.
	tokens := map[string]string{} // token → the delivered link's kind and subject
	testutil.Eventually(t, 30*time.Second, "every e-mail delivered", func() (bool, string) {
		delivered := 0
		for _, m := range srv.Messages() {
			found := secretLinkPattern.FindAllStringSubmatch(m.Text+m.HTML, -1)
			for _, f := range found {
				tokens[f[2]] = f[1] + " link in “" + m.Subject + "”"
			}
			if len(found) > 0 {
				delivered++
			}
		}
		return delivered >= sent, "links so far: " + strings.Join(values(tokens), "; ")
	})

	// None of their tokens is readable anywhere in the outbox or the queue.
	for token, what := range tokens {
		var hits int
		must(t, w.env.DB.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM mail_outbox m WHERE strpos(m::text, $1) > 0)
			+ (SELECT count(*) FROM river_job j WHERE strpos(j::text, $1) > 0)`, token).Scan(&hits))
		if hits != 0 {
			t.Errorf("the token of the %s is readable in %d stored rows", what, hits)
		}
	}
}

func values(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
