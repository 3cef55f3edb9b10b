package workspace_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
	"github.com/payportal/portal/internal/testutil/browser"
)

// typeInto replaces a field's value by typing, then leaves the field with Tab, as a rep does;
// leaving it fires the change event that autosaves the section.
func typeInto(name, value string) chromedp.Action[chromedp.Void] {
	return browser.Retype(name, value)
}

// repWithNewApplication signs a new rep in, in a browser given timeout, and has them
// create an application: its page is open on the business section.
func repWithNewApplication(t *testing.T, timeout time.Duration) (*apptest.Env, context.Context) {
	t.Helper()
	env := apptest.New(t)
	rep, pw := env.CreateUser(t, "rep@example.com", models.RoleSalesRep)
	ctx, cancel := context.WithTimeout(browser.New(t), timeout)
	t.Cleanup(cancel)
	browser.AcceptAllDialogs(t, ctx)
	browser.SignIn(t, ctx, env.URL, rep.Email, pw)
	if err := chromedp.Do(ctx, chromedp.Navigate(env.URL+"/"), chromedp.WaitVisible(chromedp.ID("new-application")),
		chromedp.Click(chromedp.ID("new-application")), chromedp.WaitVisible(chromedp.ID("section-business"))); err != nil {
		t.Fatalf("create an application: %v", err)
	}
	return env, ctx
}

// A rep creates an application, fills sections and watches them save and the checklist
// shrink, makes a mistake and sees it beside the field with everything typed still there,
// corrects it, reloads, and finds it all saved.
//
// It types as fast as chromedp can into sections that autosave, so an answer often arrives
// while the next field is being typed: the section is morphed, not replaced, and what was
// typed since the request left stays (a lost keystroke fails the reload check below).
func TestBrowserRepFillsAnApplication(t *testing.T) {
	t.Parallel()
	env, ctx := repWithNewApplication(t, 2*time.Minute)
	start := outstandingItems(t, ctx)

	// Business: each field left saves the section a moment later.
	err := chromedp.Do(ctx,
		typeInto("business.legal_name", "Blue Fern Coffee LLC"),
		typeInto("business.dba", "Blue Fern"),
		typeInto("business.phone", "(415) 555-0100"),
	)
	if err != nil {
		t.Fatalf("fill business: %v", err)
	}
	browser.WaitSaved(t, ctx, "business")
	afterBusiness := waitOutstandingBelow(t, ctx, start)

	// Owners and contact.
	err = chromedp.Do(ctx,
		typeInto("owners.0.first_name", "Jane"),
		typeInto("owners.0.last_name", "Doe"),
		typeInto("owners.0.ssn", "234-56-6789"),
	)
	if err != nil {
		t.Fatalf("fill owner: %v", err)
	}
	browser.WaitSaved(t, ctx, "owners")
	err = chromedp.Do(ctx,
		typeInto("contact.name", "Jane Doe"),
		typeInto("contact.email", "jane@bluefern.example"),
	)
	if err != nil {
		t.Fatalf("fill contact: %v", err)
	}
	browser.WaitSaved(t, ctx, "contact")
	waitOutstandingBelow(t, ctx, afterBusiness)
	if ssn := value(t, ctx, "owners.0.ssn"); ssn != "•••• 6789" {
		t.Errorf("after saving, the SSN field shows %q, want the mask", ssn)
	}

	// A mistake: the message appears beside the field, in the section's summary, and every
	// value typed stays.
	err = chromedp.Do(ctx,
		typeInto("business.email", "hello-at-bluefern"),
		chromedp.WaitVisible(browser.Field("business.email-error")),
	)
	if err != nil {
		t.Fatalf("no message beside the e-mail field: %v", err)
	}
	msg := text(t, ctx, "business.email-error")
	if msg != "Business e-mail must be an address like name@example.com." {
		t.Errorf("message = %q", msg)
	}
	if v := value(t, ctx, "business.email"); v != "hello-at-bluefern" {
		t.Errorf("typed e-mail became %q", v)
	}
	if v := value(t, ctx, "business.legal_name"); v != "Blue Fern Coffee LLC" {
		t.Errorf("legal name became %q", v)
	}
	attrs, err := chromedp.Run(ctx, chromedp.Attributes(browser.Field("business.email")))
	if err != nil || attrs["aria-invalid"] != "true" || !strings.Contains(attrs["aria-describedby"], "business.email-error") {
		t.Errorf("e-mail field attributes: %v %v", attrs, err)
	}
	summary := browser.TextOf(t, ctx, chromedp.CSS("#section-business .error-summary"))
	if !strings.Contains(summary, msg) {
		t.Errorf("section summary: %q", summary)
	}

	// Corrected, saved; the reload finds everything.
	err = chromedp.Do(ctx,
		typeInto("business.email", "hello@bluefern.example"),
		chromedp.WaitNotPresent(browser.Field("business.email-error")),
	)
	if err != nil {
		t.Fatalf("correct the e-mail: %v", err)
	}
	browser.WaitSaved(t, ctx, "business")
	if err := chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("stepper"))); err != nil {
		t.Fatalf("reload: %v", err)
	}
	for name, want := range map[string]string{
		"business.legal_name": "Blue Fern Coffee LLC", "business.dba": "Blue Fern", "business.phone": "(415) 555-0100",
		"business.email": "hello@bluefern.example", "owners.0.first_name": "Jane", "owners.0.last_name": "Doe",
		"owners.0.ssn": "•••• 6789", "contact.name": "Jane Doe", "contact.email": "jane@bluefern.example",
	} {
		if got := value(t, ctx, name); got != want {
			t.Errorf("after reload %s = %q, want %q", name, got, want)
		}
	}
	if dir := os.Getenv("PORTAL_SCREENSHOTS"); dir != "" {
		// For people checking the look: the viewport at each section.
		shoot := func(name string) {
			if png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot()); err == nil {
				_ = os.WriteFile(dir+"/"+name+".png", png, 0o644)
			}
		}
		_, _ = chromedp.Run(ctx, chromedp.Evaluate[bool](`window.scrollTo(0, 0), true`))
		shoot("top")
		for _, id := range []string{"section-owners", "section-bank", "documents", "history"} {
			if err := chromedp.Do(ctx, chromedp.ScrollIntoView(chromedp.ID(id))); err == nil {
				shoot(id)
			}
		}
		if err := chromedp.Do(ctx, chromedp.Navigate(env.URL+"/"), chromedp.WaitVisible(chromedp.ID("application-list"))); err == nil {
			shoot("dashboard")
		}
	}
}

func value(t *testing.T, ctx context.Context, name string) string {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Value(browser.Field(name)))
	if err != nil {
		t.Fatalf("value of %s: %v", name, err)
	}
	return v
}

func text(t *testing.T, ctx context.Context, id string) string {
	t.Helper()
	return browser.TextOf(t, ctx, browser.Field(id))
}

// outstandingItems reads the checklist's count of things left.
func outstandingItems(t *testing.T, ctx context.Context) int {
	t.Helper()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector('#checklist p strong') || {}).textContent || '0'`))
	if err != nil {
		t.Fatal(err)
	}
	count, err := strconv.Atoi(n)
	if err != nil {
		t.Fatalf("checklist count %q", n)
	}
	return count
}

// waitOutstandingBelow waits until the checklist, refreshed by htmx, lists fewer than n
// things, and returns how many it lists.
func waitOutstandingBelow(t *testing.T, ctx context.Context, n int) int {
	t.Helper()
	js := fmt.Sprintf(`(function(){ var s = document.querySelector('#checklist p strong');
		return !!s && parseInt(s.textContent, 10) < %d; })()`, n)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("the checklist did not shrink below %d items: %v", n, err)
	}
	return outstandingItems(t, ctx)
}
