package submission_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil"
)

// An e-mail to the merchant held for want of an SMTP server is worded for
// who reads it: the rep, whose outbox it is not, reads that it is kept for
// delivery; an admin reads the outbox's status, linked to the message.
func TestHeldHandoffEmailIsWordedForTheViewer(t *testing.T) {
	t.Parallel()
	s := newSubmitEnv(t, submitOptions{})
	a := s.newApplication(t, s.rep, readyDraft("Blue Fern"), 1)
	if res := submit(t, s.repC, a.ID); res.Status != http.StatusSeeOther {
		t.Fatalf("submit: %d", res.Status)
	}
	a = s.waitForStatus(t, a.ID, pushDeadline, models.StatusLinked)
	testutil.Eventually(t, 10*time.Second, "the hand-off e-mail held", func() (bool, string) {
		var status string
		s.env.DB.Gorm.Raw(`SELECT status FROM mail_outbox WHERE application_id = ?`, a.ID).Scan(&status)
		return status == "held", status
	})
	page := s.repC.Get("/applications/" + a.ID.String())
	if !strings.Contains(page.Body, "to jane@bluefern.example: Kept for delivery") || strings.Contains(page.Body, "SMTP") {
		t.Errorf("the rep's page does not say the e-mail is kept for delivery, or speaks of SMTP:\n%s", section(page.Body, "handoff-emails"))
	}
	page = s.adminC.Get("/applications/" + a.ID.String())
	if !strings.Contains(page.Body, `<a href="/admin/outbox/`) || !strings.Contains(page.Body, "no SMTP server configured</a>") {
		t.Errorf("the admin's page does not link the outbox's status:\n%s", section(page.Body, "handoff-emails"))
	}
}

// section is the part of a page from the element of class name on, for messages.
func section(body, class string) string {
	if i := strings.Index(body, `class="`+class); i >= 0 {
		return body[i:min(len(body), i+600)]
	}
	return body
}
