package submission_test

import (
	"context"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/pricing"
	sandbox "github.com/payportal/portal/internal/sandbox/accounts"
	"github.com/payportal/portal/internal/testutil"
)

// issued lists the sandbox's issued pricing codes.
func issued(sb *sandbox.Server) []string {
	var out []string
	for _, c := range sb.PricingCodes() {
		out = append(out, c.Code)
	}
	return out
}

// A pricing code the processor never issued stops the push at once (no
// retries), back with the rep in plain words naming the pricing model, with
// a link for admins to fix its code. In sandbox mode, saving the model
// issues its code to the sandbox, and submitting again goes through.
func TestRefusedPricingCodeNamesTheModelAndSavingIssuesIt(t *testing.T) {
	t.Parallel()
	s := newSubmitEnv(t, submitOptions{sandbox: func(o *sandbox.Options) { o.PricingCodes = []string{"SOME-OTHER-CODE"} }})
	ctx := context.Background()
	a := s.newApplication(t, s.rep, readyDraft("Blue Fern"), 1)
	submit(t, s.repC, a.ID)
	a = s.waitForStatus(t, a.ID, 20*time.Second, models.StatusNeedsAttention)
	if deref(a.LastErrorKind) != "pricing_code" || a.PushAttempts != 1 || s.sb.StartedCount() != 0 {
		t.Errorf("kind %q after %d runs (%d started upstream)", deref(a.LastErrorKind), a.PushAttempts, s.sb.StartedCount())
	}
	for _, want := range []string{"“" + pricingCode + "”", "pricing model “Flat rate”", "An admin needs to correct the model&#39;s code"} {
		if page := s.repC.Get("/applications/" + a.ID.String()); !strings.Contains(page.Body, want) {
			t.Errorf("the rep's page lacks %q", want)
		}
	}
	if page := s.repC.Get("/applications/" + a.ID.String()); !strings.Contains(page.Body, "Ask an admin to correct the pricing model's code") ||
		strings.Contains(page.Body, `href="/admin/pricing/`) {
		t.Error("the rep is not told to ask an admin (or gets the admins' link)")
	}
	if page := s.adminC.Get("/applications/" + a.ID.String()); !strings.Contains(page.Body, `<a href="/admin/pricing/`+s.pricingModel.String()+`">Correct the pricing model's code</a>`) {
		t.Error("the admin has no link to the pricing model")
	}

	// The admin saves the model: its code is issued to the sandbox.
	m, err := s.env.App.Pricing.Get(ctx, s.pricingModel)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.env.App.Pricing.Update(ctx, s.admin, m.ID, m.Version, pricing.Input{Name: m.Name, UpstreamCode: m.UpstreamCode,
		FeeSummary: m.FeeSummary, RequiredDocumentTypes: m.RequiredDocumentTypes, Active: true}); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 10*time.Second, "the code issued to the sandbox", func() (bool, string) {
		return slices.Contains(issued(s.sb), pricingCode), strings.Join(issued(s.sb), ",")
	})
	submit(t, s.repC, a.ID)
	if a = s.waitForStatus(t, a.ID, 20*time.Second, models.StatusLinked, models.StatusNeedsAttention); a.Status != models.StatusLinked || a.LastErrorKind != nil {
		t.Fatalf("after the code was issued: %s %q", a.Status, deref(a.LastError))
	}

	// New models, and at start every current one, are issued too.
	if _, err := s.env.App.Pricing.Create(ctx, s.admin, pricing.Input{Name: "Retail", UpstreamCode: "RETAIL-9", FeeSummary: "2.6%", Active: true}); err != nil {
		t.Fatal(err)
	}
	if err := s.env.DB.Gorm.Exec(`INSERT INTO pricing_models (id, name, upstream_code, active) VALUES (gen_random_uuid(), 'Seeded', 'SEEDED-1', true)`).Error; err != nil {
		t.Fatal(err)
	}
	if err := s.env.App.Pricing.IssueCurrentCodes(ctx); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 10*time.Second, "every code issued", func() (bool, string) {
		got := issued(s.sb)
		return slices.Contains(got, "RETAIL-9") && slices.Contains(got, "SEEDED-1"), strings.Join(got, ",")
	})
}

// processingPending is shown to the rep as the processor needing more
// information, with what they can do; the page of what was sent says the
// merchant may have corrected values at the processor.
func TestMoreInformationNeededTellsTheRepWhatToDo(t *testing.T) {
	t.Parallel()
	s := newSubmitEnv(t, submitOptions{})
	a := s.newApplication(t, s.rep, readyDraft("Blue Fern"), 1)
	submit(t, s.repC, a.ID)
	s.waitForStatus(t, a.ID, 20*time.Second, models.StatusLinked)
	if err := s.env.DB.Gorm.Exec(`UPDATE applications SET upstream_status = 'processingPending', upstream_status_at = now() WHERE id = ?`, a.ID).Error; err != nil {
		t.Fatal(err)
	}
	page := s.repC.Get("/applications/" + a.ID.String())
	for _, want := range []string{`data-state="processingPending"`, "More information needed", "The processor needs more information",
		"Ask the merchant to reopen their link", "upload the document the processor asked for", `id="sent-may-differ"`,
		"The merchant may have corrected some of these values on the processor's pages"} {
		if !strings.Contains(page.Body, want) {
			t.Errorf("the application page lacks %q", want)
		}
	}
	list := s.repC.Get("/?status=more_information")
	if !strings.Contains(list.Body, a.ID.String()) || !strings.Contains(list.Body, "The processor needs more information") {
		t.Error("the dashboard does not show or find it")
	}
}

// The pill at the top of the application says the outcome in its colour (Boarded green,
// Declined red, Withdrawn grey, waiting amber); once the processor has decided, the link is
// not offered to be e-mailed again (nor sent when asked), and the notes stay writable.
func TestOutcomePillAndNoResendAfterTheDecision(t *testing.T) {
	t.Parallel()
	s := newSubmitEnv(t, submitOptions{})
	a := s.newApplication(t, s.rep, readyDraft("Blue Fern"), 1)
	submit(t, s.repC, a.ID)
	s.waitForStatus(t, a.ID, 20*time.Second, models.StatusLinked)
	base := "/applications/" + a.ID.String()
	pill := regexp.MustCompile(`<span class="([^"]*)" id="application-state" data-state="([^"]*)">([^<]*)</span>`)
	page := s.repC.Get(base)
	if m := pill.FindStringSubmatch(page.Body); m == nil || m[1] != "state state-waiting" || m[3] != "Sent to merchant" {
		t.Errorf("waiting pill: %v", m)
	}
	if !strings.Contains(page.Body, `id="resend-handoff"`) {
		t.Error("no resend while the merchant has the link")
	}
	for _, tt := range []struct{ upstream, class, label string }{
		{"boarded", "state state-success", "Boarded"},
		{"declined", "state state-danger", "Declined"},
		{"withdrawn", "state state-muted", "Withdrawn"},
	} {
		if err := s.env.DB.Gorm.Exec(`UPDATE applications SET upstream_status = ?, upstream_status_at = now() WHERE id = ?`, tt.upstream, a.ID).Error; err != nil {
			t.Fatal(err)
		}
		page := s.repC.Get(base)
		if m := pill.FindStringSubmatch(page.Body); m == nil || m[1] != tt.class || m[3] != tt.label {
			t.Errorf("%s: pill %v, want %s %q", tt.upstream, m, tt.class, tt.label)
		}
		if strings.Contains(page.Body, `id="resend-handoff"`) || !strings.Contains(page.Body, `id="resend-not-needed"`) {
			t.Errorf("%s: the link is still offered to be e-mailed again", tt.upstream)
		}
		if res := s.repC.PostForm(base+"/handoff/resend", nil); res.Status != http.StatusConflict {
			t.Errorf("%s: resend answered %d, want 409", tt.upstream, res.Status)
		}
		if strings.Contains(inputTagOf(page.Body, "notes"), "disabled") {
			t.Errorf("%s: the notes are locked", tt.upstream)
		}
	}
}
