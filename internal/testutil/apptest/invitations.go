package apptest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil"
)

// InvitationLink waits for the newest invitation e-mailed to email and returns its
// link as a path of the portal. The link is sealed in the outbox, so it is revealed as
// admin sees it on the held message (the portal has no SMTP server in tests); the
// reveal is audited like any other.
func (e *Env) InvitationLink(t testing.TB, admin *models.User, email string) string {
	t.Helper()
	var link string
	testutil.Eventually(t, 10*time.Second, "an invitation to "+email, func() (bool, string) {
		page, err := e.App.Outbox.List(context.Background(), mail.ListParams{PerPage: 200})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range page.Messages { // newest first
			if m.To != email || m.Kind != mail.KindInvitation {
				continue
			}
			revealed, err := e.App.Outbox.RevealLink(context.Background(), admin.ID, &m)
			if err != nil {
				t.Fatal(err)
			}
			if revealed == "" {
				return false, "the newest invitation is " + string(m.Status)
			}
			link = strings.TrimPrefix(revealed, e.URL)
			return true, ""
		}
		return false, "none yet"
	})
	return link
}
