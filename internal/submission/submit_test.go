package submission_test

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/submission"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/models"
	sandbox "github.com/payportal/portal/internal/sandbox/accounts"
	"github.com/payportal/portal/internal/testutil/apptest"
)

// pushDeadline bounds how long a test waits for a push through the sandbox.
const pushDeadline = 20 * time.Second

func TestSubmitPushesUpstreamAndHandsOffToTheMerchant(t *testing.T) {
	t.Parallel()
	s := newSubmitEnv(t, submitOptions{smtp: true})
	a := s.newApplication(t, s.rep, readyDraft("Blue Fern"), 2)

	res := submit(t, s.repC, a.ID)
	if res.Status != http.StatusSeeOther {
		t.Fatalf("submit: %d\n%s", res.Status, res.Body)
	}
	a = s.waitForStatus(t, a.ID, pushDeadline, models.StatusLinked)

	// One upstream application, started with our id and the snapshotted code,
	// holding the data PATCHed and every document byte for byte.
	if n := s.sb.StartedCount(); n != 1 {
		t.Fatalf("sandbox started %d applications, want 1", n)
	}
	up, ok := s.sb.Application(deref(a.UpstreamApplicationID))
	if !ok {
		t.Fatalf("the sandbox does not know %s", deref(a.UpstreamApplicationID))
	}
	if up.ExternalApplicationID != a.ID.String() || up.PricingCode != pricingCode || deref(a.SubmittedPricingCode) != pricingCode {
		t.Errorf("started with %s / %s, want %s / %s", up.ExternalApplicationID, up.PricingCode, a.ID, pricingCode)
	}
	var data struct {
		Business    struct{ DBA, Phone string }
		LegalEntity struct{ TIN string }
		Banking     struct{ DepositRouting string }
	}
	if err := json.Unmarshal(up.Data, &data); err != nil {
		t.Fatal(err)
	}
	if data.Business.DBA != "Blue Fern" || data.LegalEntity.TIN != "123456789" || data.Banking.DepositRouting != "011401533" {
		t.Errorf("the sandbox holds %s", up.Data)
	}
	if !up.Linked || up.Link != s.openLink(t, a) {
		t.Errorf("link: sandbox %q (linked %v), ours %q", up.Link, up.Linked, s.openLink(t, a))
	}
	if len(up.Files) != 2 {
		t.Errorf("the sandbox holds %d files, want 2", len(up.Files))
	}
	s.assertDocumentsArrived(t, a)
	for _, step := range []*time.Time{a.UpstreamStartedAt, a.DataSentAt, a.DocumentsSentAt, a.LinkedAt} {
		if step == nil {
			t.Errorf("a step was not recorded: %+v", a)
		}
	}

	// What was sent is stored, with no personal number in the clear.
	for _, secret := range []string{"123456789", "000123456789", "234-56-6789", "234566789"} {
		if strings.Contains(string(a.SubmittedSnapshot), secret) {
			t.Errorf("submitted_snapshot holds %s in the clear", secret)
		}
	}
	acts := s.actions(t, a.ID)
	if countOf(acts, "submitted") != 1 || countOf(acts, "linked") != 1 {
		t.Errorf("audit trail: %v", acts)
	}

	// The merchant's e-mail: the tracking link, never the upstream's own.
	msg := s.smtp.WaitFor(t, pushDeadline)
	if len(msg.To) != 1 || msg.To[0] != "jane@bluefern.example" {
		t.Errorf("e-mail to %v", msg.To)
	}
	for _, part := range []string{msg.Text, msg.HTML} {
		if strings.Contains(part, s.openLink(t, a)) {
			t.Error("the e-mail carries the upstream link instead of the tracking link")
		}
		for _, want := range []string{"Test Payments", s.repName, "Blue Fern"} {
			if !strings.Contains(part, want) {
				t.Errorf("the e-mail does not name %q:\n%s", want, part)
			}
		}
	}
	link := trackingLink(t, msg.Text, s.env.URL)
	handoffLink, err := s.env.App.Store.OpenHandoffLink(a)
	if err != nil || !strings.HasPrefix(handoffLink, s.env.Sandbox.URL) || strings.Contains(deref(a.HandoffLink), handoffLink) {
		t.Fatalf("hand-off link %q (%v), stored as %q: want it sealed", handoffLink, err, deref(a.HandoffLink))
	}

	// The page: read-only snapshot, masked, with the processor's link to copy.
	page := s.repC.Get("/applications/" + a.ID.String())
	for _, want := range []string{`id="submitted"`, `data-copy-target="handoff-link"`, html.EscapeString(handoffLink), "•••• 6789", "Not opened yet", "Blue Fern"} {
		if !strings.Contains(page.Body, want) {
			t.Errorf("the page does not show %q", want)
		}
	}
	for _, secret := range []string{"234-56-6789", "234566789", "000123456789"} {
		if strings.Contains(page.Body, secret) {
			t.Errorf("the page shows %s", secret)
		}
	}

	// The merchant opens the link: recorded, then on to the sandbox's page.
	resp, err := noRedirect.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != handoffLink {
		t.Fatalf("open: %d to %q, want 303 to %q", resp.StatusCode, resp.Header.Get("Location"), handoffLink)
	}
	merchant, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	merchant.Body.Close()
	if merchant.StatusCode != http.StatusOK || !strings.HasPrefix(merchant.Request.URL.String(), s.env.Sandbox.URL) {
		t.Errorf("the merchant landed on %s with %d", merchant.Request.URL, merchant.StatusCode)
	}
	if a = s.load(t, a.ID); a.OpenedAt == nil {
		t.Error("the open was not recorded")
	}
	if page := s.repC.Get("/applications/" + a.ID.String()); !strings.Contains(page.Body, "Opened, first on") {
		t.Error("the page does not show the open")
	}

	// The sandbox's webhooks bring its state (opening its page moved it to
	// inProgress); the page, the history and the dashboard show it.
	a = s.waitForUpstreamStatus(t, a.ID, "inProgress")
	page = s.repC.Get("/applications/" + a.ID.String())
	for _, want := range []string{"Merchant completing", "is completing the application at the processor", "recorded that the merchant opened the link",
		"created the merchant&#39;s link at the processor", "received the processor&#39;s status: "} {
		if !strings.Contains(page.Body, want) {
			t.Errorf("the page does not show %q", want)
		}
	}
	dashboard := s.repC.Get("/")
	for _, want := range []string{"Merchant completing", "is completing the application at the processor", `class="opened"`} {
		if !strings.Contains(dashboard.Body, want) {
			t.Errorf("the dashboard does not show %q", want)
		}
	}
}

// waitForUpstreamStatus polls until the application shows the upstream state.
func (s *submitEnv) waitForUpstreamStatus(t *testing.T, id uuid.UUID, status string) *models.Application {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	timeout := time.After(pushDeadline)
	for {
		a := s.load(t, id)
		if deref(a.UpstreamStatus) == status {
			return a
		}
		select {
		case <-tick.C:
		case <-timeout:
			t.Fatalf("upstream status %q, want %q", deref(a.UpstreamStatus), status)
		}
	}
}

func TestPermanentErrorReturnsToTheRepAndResubmitContinues(t *testing.T) {
	t.Parallel()
	s := newSubmitEnv(t, submitOptions{smtp: true})
	d := readyDraft("Long Story Books")
	// The portal accepts an international phone number; the processor refuses anything
	// but a US one. (Every bound is the same on both sides, see bounds_mirror_test.go.)
	d.Business.Phone = "+44 20 7946 0958"
	a := s.newApplication(t, s.rep, d, 1)

	if res := submit(t, s.repC, a.ID); res.Status != http.StatusSeeOther {
		t.Fatalf("submit: %d\n%s", res.Status, res.Body)
	}
	a = s.waitForStatus(t, a.ID, pushDeadline, models.StatusNeedsAttention)
	want := "The processor rejected the application: business.phone:"
	if !strings.HasPrefix(deref(a.LastError), want) {
		t.Fatalf("last error %q, want it to start with %q", deref(a.LastError), want)
	}
	if a.UpstreamApplicationID == nil || a.DataSentAt != nil || a.Locked() {
		t.Errorf("after the refusal: %+v", a)
	}
	page := s.repC.Get("/applications/" + a.ID.String())
	if !strings.Contains(page.Body, "business.phone") || !strings.Contains(page.Body, "The submission stopped") {
		t.Error("the page does not show the processor's message")
	}
	if !strings.Contains(s.repC.Get("/applications/"+a.ID.String()+"/progress").Body, "business.phone") {
		t.Error("the progress does not show the processor's message")
	}
	if acts := s.actions(t, a.ID); countOf(acts, "submission_failed") != 1 {
		t.Errorf("audit trail: %v", acts)
	}

	// The rep corrects the field (needs attention is editable) and submits again.
	_, version := s.repC.ShowApplication(a.ID)
	values := url.Values{"business.phone": {"(212) 555-0100"}, "version": {version}}
	if res := s.repC.PostForm("/applications/"+a.ID.String()+"/sections/business", values); res.Status != http.StatusSeeOther {
		t.Fatalf("save after the refusal: %d\n%s", res.Status, res.Body)
	}
	if res := submit(t, s.repC, a.ID); res.Status != http.StatusSeeOther {
		t.Fatalf("resubmit: %d\n%s", res.Status, res.Body)
	}
	a = s.waitForStatus(t, a.ID, pushDeadline, models.StatusLinked)
	if n := s.sb.StartedCount(); n != 1 {
		t.Errorf("the sandbox started %d applications, want 1: the resubmission continues the same one", n)
	}
	up, _ := s.sb.Application(deref(a.UpstreamApplicationID))
	if !strings.Contains(string(up.Data), `"phone":"2125550100"`) {
		t.Errorf("the corrected data did not arrive: %s", up.Data)
	}
	if a.SubmissionCount != 2 || a.LastError != nil {
		t.Errorf("after resubmission: submissions %d, last error %v", a.SubmissionCount, a.LastError)
	}
	s.assertDocumentsArrived(t, a)
	s.smtp.WaitFor(t, pushDeadline)
}

func TestRepResendsTheHandoffEmail(t *testing.T) {
	t.Parallel()
	s := newSubmitEnv(t, submitOptions{smtp: true})
	a := s.newApplication(t, s.rep, readyDraft("Blue Fern"), 1)
	submit(t, s.repC, a.ID)
	a = s.waitForStatus(t, a.ID, pushDeadline, models.StatusLinked)
	first := s.smtp.WaitFor(t, pushDeadline)

	s.repC.Get("/applications/" + a.ID.String())
	res := s.repC.PostForm("/applications/"+a.ID.String()+"/handoff/resend", nil)
	if res.Status != http.StatusSeeOther {
		t.Fatalf("resend: %d\n%s", res.Status, res.Body)
	}
	second := s.smtp.WaitFor(t, pushDeadline)
	// The resend carries a tracked link of its own; the first one still works.
	firstLink, secondLink := trackingLink(t, first.Text, s.env.URL), trackingLink(t, second.Text, s.env.URL)
	if secondLink == firstLink || second.To[0] != first.To[0] {
		t.Errorf("the second e-mail: to %v, link %s (the first had %s)", second.To, secondLink, firstLink)
	}
	for _, link := range []string{firstLink, secondLink} {
		resp, err := noRedirect.Get(link)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther {
			t.Errorf("%s: %d, want 303", link, resp.StatusCode)
		}
	}
	var resentFrom []string
	if err := s.env.DB.Gorm.Table("mail_outbox").Where("application_id = ? AND resent_from IS NOT NULL", a.ID).
		Pluck("created_by::text", &resentFrom).Error; err != nil {
		t.Fatal(err)
	}
	if len(resentFrom) != 1 || resentFrom[0] != s.rep.ID.String() {
		t.Errorf("outbox copies made by the rep: %v", resentFrom)
	}
	if acts := s.actions(t, a.ID); countOf(acts, "handoff_resent") != 1 {
		t.Errorf("audit trail: %v", acts)
	}
	page := s.repC.Get("/applications/" + a.ID.String())
	if strings.Count(page.Body, "</time> to jane@bluefern.example") != 2 {
		t.Error("the page does not list both e-mails")
	}

	// Another rep cannot, and nothing can be resent before the link exists.
	other, pw := s.env.CreateUser(t, "other@example.com", models.RoleSalesRep)
	oc := s.env.Client(t)
	oc.Login(other.Email, pw)
	oc.Get("/")
	if res := oc.PostForm("/applications/"+a.ID.String()+"/handoff/resend", nil); res.Status != http.StatusNotFound {
		t.Errorf("another rep: %d", res.Status)
	}
	draft := s.newApplication(t, s.rep, readyDraft("Not Yet"), 1)
	if res := s.repC.PostForm("/applications/"+draft.ID.String()+"/handoff/resend", nil); res.Status != http.StatusConflict {
		t.Errorf("resend before the link: %d", res.Status)
	}
}

func TestTransientFailuresRetryThenGoBackToTheRep(t *testing.T) {
	t.Parallel()
	s := newSubmitEnv(t, submitOptions{sandbox: func(o *sandbox.Options) {
		o.Faults = sandbox.Faults{ErrorRate: 1} // the processor is down
	}})
	a := s.newApplication(t, s.rep, readyDraft("Blue Fern"), 1)
	submit(t, s.repC, a.ID)
	a = s.waitForStatus(t, a.ID, pushDeadline, models.StatusNeedsAttention)
	msg := deref(a.LastError)
	if !strings.Contains(msg, "The processor") || !strings.Contains(msg, "tried 8 times and stopped; submit again to retry") {
		t.Errorf("last error %q", msg)
	}
	if a.PushAttempts != submission.PushMaxAttempts || s.sb.StartedCount() != 0 {
		t.Errorf("runs %d, started %d", a.PushAttempts, s.sb.StartedCount())
	}

	// The processor is back: submitting again goes through.
	if err := s.sb.SetFaults(sandbox.Faults{}); err != nil {
		t.Fatal(err)
	}
	if res := submit(t, s.repC, a.ID); res.Status != http.StatusSeeOther {
		t.Fatalf("resubmit: %d", res.Status)
	}
	a = s.waitForStatus(t, a.ID, pushDeadline, models.StatusLinked)
	if s.sb.StartedCount() != 1 || a.PushAttempts != 1 {
		t.Errorf("started %d, runs %d", s.sb.StartedCount(), a.PushAttempts)
	}
}

func TestSubmitRefusesAnIncompleteApplication(t *testing.T) {
	t.Parallel()
	s := newSubmitEnv(t, submitOptions{})
	a := s.newApplication(t, s.rep, readyDraft("Blue Fern"), 0) // the bank statement is missing
	res := submit(t, s.repC, a.ID)
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "1 thing left on the checklist") {
		t.Errorf("submit without the required document: %d\n%.400s", res.Status, res.Body)
	}
	if a = s.load(t, a.ID); a.Status != models.StatusDraft || a.SubmissionCount != 0 {
		t.Errorf("status %s after a refused submission", a.Status)
	}
	var jobs int64
	s.env.DB.Gorm.Table("river_job").Where("kind = 'application_push'").Count(&jobs)
	if jobs != 0 {
		t.Errorf("%d push jobs enqueued", jobs)
	}
}

// TestResubmitAfterTheLinkAlreadyExistsUpstream covers a link created upstream
// but never recorded (its answer lost, the push then stopped): the upstream
// refuses PATCH from then on, so the resubmission hands off with that link and
// says the corrections were not sent.
func TestResubmitAfterTheLinkAlreadyExistsUpstream(t *testing.T) {
	t.Parallel()
	s := newSubmitEnv(t, submitOptions{})
	d := readyDraft("Long Story Books")
	d.Business.Phone = "+44 20 7946 0958" // refused by the processor, see above
	a := s.newApplication(t, s.rep, d, 1)
	submit(t, s.repC, a.ID)
	a = s.waitForStatus(t, a.ID, pushDeadline, models.StatusNeedsAttention)
	link, err := s.env.App.Upstream.CreateLink(t.Context(), deref(a.UpstreamApplicationID))
	if err != nil {
		t.Fatal(err)
	}
	_, version := s.repC.ShowApplication(a.ID)
	s.repC.PostForm("/applications/"+a.ID.String()+"/sections/business", url.Values{"business.phone": {"(212) 555-0100"}, "version": {version}})
	submit(t, s.repC, a.ID)
	a = s.waitForStatus(t, a.ID, pushDeadline, models.StatusLinked)
	if s.openLink(t, a) != link || s.sb.StartedCount() != 1 {
		t.Errorf("link %q (upstream %q), started %d", s.openLink(t, a), link, s.sb.StartedCount())
	}
	if !strings.Contains(deref(a.LastError), "corrections were not sent") {
		t.Errorf("note %q", deref(a.LastError))
	}
	s.assertDocumentsArrived(t, a)
	if page := s.repC.Get("/applications/" + a.ID.String()); !strings.Contains(page.Body, "corrections were not sent") {
		t.Error("the page does not say the corrections were not sent")
	}
}

func TestTwoSubmitsAtOnceMakeOneSubmission(t *testing.T) {
	t.Parallel()
	s := newSubmitEnv(t, submitOptions{extra: []apptest.Option{apptest.WithoutWorkers()}})
	a := s.newApplication(t, s.rep, readyDraft("Blue Fern"), 1)
	errs := make(chan error, 2)
	for range 2 {
		go func() { errs <- s.env.App.Submissions.Submit(t.Context(), s.rep, a.ID) }()
	}
	var failed int
	for range 2 {
		if err := <-errs; err != nil {
			failed++
			if apperr.KindOf(err) != apperr.KindConflict {
				t.Errorf("the second submit: %v, want a conflict", err)
			}
		}
	}
	if failed != 1 {
		t.Errorf("%d of 2 simultaneous submits failed, want 1", failed)
	}
	var jobs int64
	s.env.DB.Gorm.Table("river_job").Where("kind = 'application_push'").Count(&jobs)
	if a = s.load(t, a.ID); jobs != 1 || a.SubmissionCount != 1 || a.Status != models.StatusSubmitting {
		t.Errorf("jobs %d, submissions %d, status %s", jobs, a.SubmissionCount, a.Status)
	}
}
