package submission_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/testutil"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/pricing"
	sandbox "github.com/payportal/portal/internal/sandbox/accounts"
	"github.com/payportal/portal/internal/testutil/apptest"
	"github.com/payportal/portal/internal/testutil/browser"
	"github.com/payportal/portal/internal/testutil/smtpserver"
)

// journeyLatency slows every sandbox API answer, so that the push takes a
// second or two and the rep's page shows it running before the link arrives.
const journeyLatency = 300 * time.Millisecond

// journeyWait bounds each wait of the journey for something the portal or the
// sandbox does on its own (a save, an upload, the push, a webhook).
const journeyWait = 30 * time.Second

// typedValue is one value typed into the application form.
type typedValue struct{ name, value string }

// The whole journey in browsers: a rep signs in, creates an application and
// completes it through the real pages, picks the pricing model, uploads the
// documents it requires, submits, watches the push on the page until the
// link appears, and finds the application locked. The merchant's e-mail
// reaches the SMTP server; the merchant (a browser of their own) opens its
// link, lands on the sandbox's pages, finds the details the rep filled in,
// completes the bank account the rep left to them (a mistyped routing number
// is refused with a clear message), and accepts the terms. The rep's dashboard shows the link
// opened, then the processor's "processing" state that its webhook brought.
func TestBrowserJourneyFromDraftToProcessing(t *testing.T) {
	t.Parallel()
	smtp := smtpserver.Start(t)
	env := apptest.New(t,
		apptest.WithSandbox(func(o *sandbox.Options) { o.Faults = sandbox.Faults{Latency: journeyLatency} }),
		apptest.WithEnv("PORTAL_SMTP_HOST", smtp.Host),
		apptest.WithEnv("PORTAL_SMTP_PORT", smtp.PortString()),
		apptest.WithEnv("PORTAL_SMTP_TLS", "none"),
		apptest.WithEnv("PORTAL_SMTP_FROM", "Onboarding <onboarding@reseller.test>"))
	rep, repPW := env.CreateUser(t, "rep@example.com", models.RoleSalesRep)
	admin, _ := env.CreateUser(t, "admin@example.com", models.RoleAdmin)
	model, err := env.App.Pricing.Create(context.Background(), admin, pricing.Input{
		Name: "Retail swipe", UpstreamCode: "RETAIL-SWIPE-1", FeeSummary: "2.6% + 10¢ per card sale",
		RequiredDocumentTypes: []string{"bank_statement", "voided_check"}, Active: true,
	})
	if err != nil {
		t.Fatalf("seed pricing model: %v", err)
	}
	dir := t.TempDir()
	files := map[string]string{
		"bank_statement": filepath.Join(dir, "march statement.pdf"),
		"voided_check":   filepath.Join(dir, "voided check.pdf"),
	}
	for _, f := range files {
		if err := os.WriteFile(f, sizedPDF(t, 300<<10), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	ctx, cancel := context.WithTimeout(browser.New(t), 2*time.Minute)
	defer cancel()
	browser.AcceptAllDialogs(t, ctx)
	browser.SignIn(t, ctx, env.URL, rep.Email, repPW)

	id := repCreatesApplication(t, ctx)
	repCompletesApplication(t, ctx, model.ID)
	repUploadsDocuments(t, ctx, files["bank_statement"], files["voided_check"])
	repReviews(t, ctx)
	link := repSubmitsAndWatches(t, ctx)
	repSeesTheLock(t, ctx, env, id, link)

	msg := smtp.WaitFor(t, journeyWait)
	if len(msg.To) != 1 || msg.To[0] != "jane@bluefern.example" {
		t.Errorf("e-mail went to %v, want the merchant contact", msg.To)
	}
	// The e-mail carries a tracked link of its own, through the portal.
	mailed := trackingLink(t, msg.Text, env.URL)
	if !strings.HasPrefix(mailed, env.URL+"/l/") || mailed == link {
		t.Errorf("e-mailed link %s, the page shows %s", mailed, link)
	}
	if !strings.Contains(msg.HTML, mailed) {
		t.Errorf("the HTML part lacks the link %s", mailed)
	}

	// The merchant has a browser of their own: no portal session.
	merchant, cancelMerchant := chromedp.NewContext(ctx, chromedp.WithNewBrowserContext())
	defer cancelMerchant()
	merchantOpensLink(t, merchant, env, mailed)

	dashboardRow := `tr[data-application="` + id.String() + `"]`
	if err := chromedp.Do(ctx,
		chromedp.Navigate(env.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(dashboardRow+" small.opened")),
	); err != nil {
		t.Fatalf("the dashboard does not show the link opened: %v", err)
	}

	merchantCompletesBankAccount(t, merchant)
	merchantAccepts(t, merchant)
	waitForUpstreamStatus(t, env, id, "processing")
	if err := chromedp.Do(ctx,
		chromedp.Navigate(env.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(dashboardRow+" small.upstream-status")),
	); err != nil {
		t.Fatalf("the dashboard does not show the processor's status: %v", err)
	}
	row := browser.TextOf(t, ctx, chromedp.CSS(dashboardRow))
	if !strings.Contains(row, "Opened") || !strings.Contains(row, "In review") || !strings.Contains(row, "the processor is reviewing the application") {
		t.Errorf("dashboard row:\n%s", row)
	}
}

// repCreatesApplication presses "New application" on the dashboard and returns
// the new application's id, from the page's address.
func repCreatesApplication(t *testing.T, ctx context.Context) uuid.UUID {
	t.Helper()
	err := chromedp.Do(ctx,
		chromedp.WaitVisible(chromedp.ID("new-application")),
		chromedp.Click(chromedp.ID("new-application")),
		chromedp.WaitVisible(chromedp.ID("section-business")),
	)
	if err != nil {
		t.Fatalf("create an application: %v", err)
	}
	location := browserValue(t, ctx, "the page's address", chromedp.Location())
	i := strings.Index(location, "/applications/")
	if i < 0 {
		t.Fatalf("new application's address %s", location)
	}
	id, err := uuid.Parse(strings.SplitN(location[i+len("/applications/"):], "#", 2)[0])
	if err != nil {
		t.Fatalf("new application's address %s: %v", location, err)
	}
	return id
}

// repCompletesApplication fills every required field, section by section, and
// picks the pricing model.
func repCompletesApplication(t *testing.T, ctx context.Context, model uuid.UUID) {
	t.Helper()
	repFillsSection(t, ctx, "business", []typedValue{
		{"business.legal_name", "Blue Fern Coffee LLC"}, {"business.dba", "Blue Fern"},
		{"business.entity_type", "llc"}, {"business.tin", "12-3456789"},
		{"business.incorporation_date", "2019-06-01"}, {"business.incorporation_state", "CA"},
		{"business.address.line1", "100 Market St"}, {"business.address.city", "San Francisco"},
		{"business.address.state", "CA"}, {"business.address.postal_code", "94105"},
		{"business.phone", "(415) 555-0100"}, {"business.email", "hello@bluefern.example"},
		{"business.website", "https://bluefern.example"},
		{"business.goods_and_services", "Coffee and pastries"}, {"business.mcc", "5814"},
		{"business.years_in_business", "6"}, {"business.monthly_volume", "45,000"},
		{"business.average_ticket", "12.50"}, {"business.highest_ticket", "250"},
		{"business.card_present_pct", "80"}, {"business.keyed_pct", "5"}, {"business.ecommerce_pct", "15"},
	})
	// The new application starts with one empty owner. Its control person box is
	// ticked after the other values are set (a click saves the section by itself
	// after a delay, and its answer would put back values set before it without
	// input events), just before the section's Save.
	repFillsSection(t, ctx, "owners", []typedValue{
		{"owners.0.first_name", "Jane"}, {"owners.0.last_name", "Doe"}, {"owners.0.title", "Managing member"},
		{"owners.0.ownership_pct", "100"}, {"owners.0.date_of_birth", "1980-04-02"}, {"owners.0.ssn", "212-45-6789"},
		{"owners.0.address.line1", "1 Home Way"}, {"owners.0.address.city", "Oakland"},
		{"owners.0.address.state", "CA"}, {"owners.0.address.postal_code", "94601"},
		{"owners.0.phone", "(510) 555-0199"}, {"owners.0.email", "jane@bluefern.example"},
	}, "owners.0.is_control_person")
	// The rep has no voided check at hand: the merchant will enter the account.
	if err := chromedp.Do(ctx, chromedp.Click(browser.Field("bank.from_merchant"))); err != nil {
		t.Fatalf("leave the bank account to the merchant: %v", err)
	}
	repFillsSection(t, ctx, "bank", nil)
	repFillsSection(t, ctx, "contact", []typedValue{
		{"contact.name", "Jane Doe"}, {"contact.email", "jane@bluefern.example"}, {"contact.phone", "(510) 555-0199"},
	})
	repFillsSection(t, ctx, "pricing", []typedValue{{"pricing.model", model.String()}})
}

// repFillsSection puts the values in the section's fields and presses its Save
// button, then waits for the save and checks that no field was refused.
// chromedp.SetValue fires input, so a formatted field's value is given as the
// page formats it (45,000, (510) 555-0199).
func repFillsSection(t *testing.T, ctx context.Context, section string, values []typedValue, clicks ...string) {
	t.Helper()
	var steps []chromedp.Action[chromedp.Void]
	for _, v := range values {
		steps = append(steps, chromedp.SetValue(browser.Field(v.name), v.value))
	}
	for _, name := range clicks {
		steps = append(steps, chromedp.Click(browser.Field(name)))
	}
	steps = append(steps, chromedp.Click(chromedp.CSS("#section-"+section+" .save-bar button[type=submit]")))
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("fill %s: %v", section, err)
	}
	browser.WaitSaved(t, ctx, section)
	refused, err := chromedp.Run(ctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll('#section-`+section+` .field-error'))
		.map(e => e.id + ": " + e.textContent.trim()).join("\n")`))
	if err != nil || refused != "" {
		t.Fatalf("section %s refused values (%v):\n%s", section, err, refused)
	}
}

// repUploadsDocuments uploads the bank statement and the voided check through the
// documents section, and waits for both uploads and for the checklist to be
// empty.
func repUploadsDocuments(t *testing.T, ctx context.Context, statement, check string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.ID("doc-file"))); err != nil {
		t.Fatalf("no documents section: %v", err)
	}
	for _, up := range []struct{ docType, file string }{{"bank_statement", statement}, {"voided_check", check}} {
		err := chromedp.Do(ctx,
			chromedp.SetValue(chromedp.ID("doc-type"), up.docType),
			chromedp.SetUploadFiles(chromedp.ID("doc-file"), []string{up.file}),
			chromedp.Click(chromedp.CSS(`form.doc-upload button[type="submit"]`)),
		)
		if err != nil {
			t.Fatalf("upload %s: %v", up.file, err)
		}
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](
		`document.querySelectorAll('[data-upload-item][data-state="done"]').length === 2`,
		chromedp.WithPollingTimeout(journeyWait))); err != nil {
		states, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll('[data-upload-item]')).map(li => li.dataset.state + ": " + li.textContent).join("\n")`))
		t.Fatalf("uploads did not both finish: %v\n%s", err, states)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](
		`!!document.querySelector('#checklist .checklist-done') && document.querySelector('#step-review [data-step-state]').textContent === 'Ready to submit'`,
		chromedp.WithPollingTimeout(journeyWait))); err != nil {
		left, _ := chromedp.Run(ctx, chromedp.Text(chromedp.ID("checklist")))
		t.Fatalf("the checklist is not empty, or the stepper disagrees: %v\n%s", err, left)
	}
}

// repReviews opens the review step from the checklist: everything entered, grouped by
// section, the SSN masked, and Submit available.
func repReviews(t *testing.T, ctx context.Context) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("review-link")), chromedp.WaitVisible(chromedp.ID("review-heading"))); err != nil {
		t.Fatalf("open the review: %v", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`!document.getElementById('submit-application').disabled`,
		chromedp.WithPollingTimeout(journeyWait))); err != nil {
		t.Fatalf("Submit is not available on the review: %v", err)
	}
	review := browserValue(t, ctx, "the review", chromedp.Text(chromedp.ID("review")))
	for _, want := range []string{"Blue Fern Coffee LLC", "(415) 555-0100", "$45,000.00", "Owner 1: Jane Doe (control person)",
		"•••• 6789", "The merchant enters it on the processor's pages", "Voided check or bank letter"} {
		if !strings.Contains(review, want) {
			t.Errorf("the review lacks %q", want)
		}
	}
	if strings.Contains(review, "212-45-6789") || strings.Contains(review, "212456789") {
		t.Error("the review shows the SSN")
	}
}

// repSubmitsAndWatches presses Submit, sees the push's steps running, and waits for
// the link to appear in them without a reload of the page. It returns the link.
func repSubmitsAndWatches(t *testing.T, ctx context.Context) string {
	t.Helper()
	// The push takes several upstream answers of journeyLatency each, so the
	// page after Submit shows it running.
	// Pressed, Submit says so at once and cannot be pressed twice, until the page that
	// follows shows the push's progress.
	pending := browserValue(t, ctx, "Submit's pending state", chromedp.Evaluate[string](`(() => {
		const b = document.getElementById('submit-application'); b.click();
		return [b.textContent, b.closest('form').getAttribute('aria-busy'), b.getAttribute('aria-disabled'), document.querySelector('[data-submit-pending] progress') ? 'progress' : ''].join('|'); })()`))
	if pending != "Submitting…|true|true|progress" {
		t.Errorf("Submit right after the press: %q", pending)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.ID("submission-bar"))); err != nil {
		t.Fatalf("submit: %v", err)
	}
	running, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
		const bar = document.getElementById('submission-bar');
		window.journeySamePage = true; // gone if the page reloads
		return bar.value < bar.max && !document.getElementById('handoff-link');
	})()`))
	if err != nil || !running {
		t.Fatalf("the page after Submit does not show the push running (%v)", err)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#submission-steps #handoff-link"))); err != nil {
		t.Fatalf("the link never appeared in the progress: %v", err)
	}
	link := browserValue(t, ctx, "the link", chromedp.Value(chromedp.ID("handoff-link")))
	same, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.journeySamePage === true &&
		document.getElementById('submission-bar').value === document.getElementById('submission-bar').max`))
	if err != nil || !same {
		t.Errorf("the progress did not finish in place, without a reload (%v)", err)
	}
	return link
}

// repSeesTheLock reloads the application: it shows what was sent with the link,
// and nothing can be edited any more.
func repSeesTheLock(t *testing.T, ctx context.Context, env *apptest.Env, id uuid.UUID, link string) {
	t.Helper()
	if strings.HasPrefix(link, env.URL) {
		t.Errorf("link %s is the portal's: the rep's copy is the processor's link (tracked links are kept as hashes)", link)
	}
	err := chromedp.Do(ctx,
		chromedp.Navigate(env.URL+"/applications/"+id.String()),
		chromedp.WaitVisible(chromedp.ID("submitted")),
		// The documents section arrives with htmx; locked, it has no upload form.
		chromedp.WaitVisible(chromedp.CSS("#documents .doc-locked")),
	)
	if err != nil {
		t.Fatalf("open the linked application: %v", err)
	}
	shown := browserValue(t, ctx, "the locked page's link", chromedp.Value(chromedp.CSS("#submitted #handoff-link")))
	disabled := browserValue(t, ctx, "the fields' state", chromedp.Evaluate[bool](`(fields => fields.length > 20 && fields.every(e => e.disabled))(
		Array.from(document.querySelectorAll('#application [data-autosave] input:not([type=hidden]), #application [data-autosave] select, #application [data-autosave] textarea')))`))
	noSubmit := browserValue(t, ctx, "the buttons' state", chromedp.Evaluate[bool](`!document.getElementById('doc-file') && !document.getElementById('submit-application') && document.getElementById('checklist-heading').textContent === 'Handed off'`))
	if shown != link {
		t.Errorf("locked page shows link %s, the progress showed %s", shown, link)
	}
	if !disabled || !noSubmit {
		t.Errorf("the linked application can still be edited: fields disabled %v, no upload and no submit %v", disabled, noSubmit)
	}
	sent := browser.TextOf(t, ctx, chromedp.CSS("#submitted"))
	if !strings.Contains(sent, "Blue Fern") || strings.Contains(sent, "212-45-6789") || strings.Contains(sent, "212456789") {
		t.Errorf("what was sent should show the merchant and mask the SSN:\n%s", sent)
	}
	if !strings.Contains(sent, "Not sent: the merchant enters it in the processor's pages") {
		t.Errorf("what was sent should say the bank account was left to the merchant:\n%s", sent)
	}
}

// merchantOpensLink follows the e-mailed link to the sandbox's details page,
// which shows what the portal sent (numbers masked) and asks only for the bank
// account the rep left to the merchant.
func merchantOpensLink(t *testing.T, ctx context.Context, env *apptest.Env, link string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(link), chromedp.WaitVisible(chromedp.ID("continue"))); err != nil {
		t.Fatalf("merchant opens the link: %v", err)
	}
	location := browserValue(t, ctx, "the merchant's page address", chromedp.Location())
	if !strings.HasPrefix(location, env.Sandbox.URL+"/app/") {
		t.Errorf("the link led to %s, want the sandbox's merchant pages", location)
	}
	asked, err := chromedp.Run(ctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll('form input[required], form input, form select'))
		.map(e => e.name).filter((n, i, all) => all.indexOf(n) === i).sort().join(", ")`))
	if err != nil || !strings.Contains(asked, "banking.depositAccount") || !strings.Contains(asked, "banking.depositRouting") || strings.Contains(asked, "owners") || strings.Contains(asked, "business") {
		t.Errorf("the merchant should be asked for the bank account only, is asked for %q (%v)", asked, err)
	}
	page := browser.TextOf(t, ctx, chromedp.CSS("main"))
	if !strings.Contains(page, "Blue Fern") || strings.Contains(page, "212-45-6789") {
		t.Errorf("details page should show the business and mask the SSN:\n%s", page)
	}
}

// merchantCompletesBankAccount enters the missing bank account: a mistyped
// routing number gets a clear message beside the field and keeps what was
// typed, then the test routing number is accepted.
func merchantCompletesBankAccount(t *testing.T, ctx context.Context) {
	t.Helper()
	const account, routing = "#f-banking-depositAccount", "#f-banking-depositRouting"
	err := chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(account), "000123456789"),
		chromedp.SendKeys(chromedp.CSS(routing), "011401534"),
		chromedp.Click(chromedp.ID("continue")),
		chromedp.WaitVisible(chromedp.ID("f-banking-depositRouting-error")),
	)
	if err != nil {
		t.Fatalf("merchant enters a wrong routing number: %v", err)
	}
	if msg := browser.TextOf(t, ctx, chromedp.CSS("#f-banking-depositRouting-error")); !strings.Contains(msg, "ABA checksum") {
		t.Errorf("wrong routing number message %q, want it to explain the checksum", msg)
	}
	if kept := browserValue(t, ctx, "the account number", chromedp.Value(chromedp.CSS(account))); kept != "000123456789" {
		t.Errorf("account number after the refused post = %q, want it kept", kept)
	}
	err = chromedp.Do(ctx,
		chromedp.Clear(chromedp.CSS(routing)),
		chromedp.SendKeys(chromedp.CSS(routing), "011401533"),
	)
	if err != nil {
		t.Fatalf("merchant fixes the routing number: %v", err)
	}
}

// merchantAccepts confirms the details and accepts the terms.
func merchantAccepts(t *testing.T, ctx context.Context) {
	t.Helper()
	err := chromedp.Do(ctx,
		chromedp.Click(chromedp.ID("continue")),
		chromedp.WaitVisible(chromedp.ID("accept")),
		chromedp.Click(chromedp.ID("accept")),
		chromedp.Click(chromedp.ID("submit-application")),
		chromedp.WaitVisible(chromedp.ID("confirmation")),
	)
	if err != nil {
		t.Fatalf("merchant accepts: %v", err)
	}
	if status := browserValue(t, ctx, "the sandbox's status", chromedp.Text(chromedp.ID("status"))); status != "processing" {
		t.Errorf("after acceptance the sandbox says %q, want processing", status)
	}
}

// waitForUpstreamStatus waits until the processor's webhook has brought status
// to the application row.
func waitForUpstreamStatus(t *testing.T, env *apptest.Env, id uuid.UUID, status string) {
	t.Helper()
	testutil.Eventually(t, journeyWait, "upstream status "+status, func() (bool, string) {
		var got *string
		if err := env.DB.Pool.QueryRow(context.Background(), `SELECT upstream_status FROM applications WHERE id = $1`, id).Scan(&got); err != nil {
			t.Fatal(err)
		}
		return deref(got) == status, fmt.Sprintf("it is %q", deref(got))
	})
}

// read runs an action that returns a value, failing the test on error.
func browserValue[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("read %s: %v", what, err)
	}
	return v
}
