package web_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/a11y"
	"github.com/payportal/portal/internal/testutil/apptest"
	"github.com/payportal/portal/internal/testutil/browser"
)

// The portal's main pages pass axe-core's WCAG 2.1 AA checks of serious and
// critical impact: labels, names, contrast, landmarks, ARIA use.
func TestBrowserPagesPassAccessibilityAudit(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	_, adminPW := env.CreateUser(t, "admin@example.com", models.RoleAdmin)
	ctx, cancel := context.WithTimeout(browser.New(t), 120*time.Second)
	defer cancel()

	audit := func(name string, ready chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, ready); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, v := range a11y.Audit(t, ctx) {
			t.Errorf("%s: %s", name, v)
		}
	}

	if err := chromedp.Do(ctx, chromedp.Navigate(env.URL+"/login")); err != nil {
		t.Fatal(err)
	}
	audit("sign-in page", chromedp.WaitVisible(chromedp.ID("email")))
	browser.SignIn(t, ctx, env.URL, "admin@example.com", adminPW, env.TOTP(t, "admin@example.com"))
	audit("dashboard", chromedp.WaitVisible(chromedp.ID("new-application")))

	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("new-application"))); err != nil {
		t.Fatal(err)
	}
	audit("application", chromedp.WaitVisible(chromedp.ID("section-business")))
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.ID("step-bank")),
		chromedp.SetValue(chromedp.CSS(`[name="bank.routing_number"]`), "123456789"),
		chromedp.Click(chromedp.CSS("#section-bank .save-bar button[type=submit]")),
	); err != nil {
		t.Fatal(err)
	}
	audit("application with a refused value", chromedp.WaitVisible(chromedp.CSS(`#section-bank .field-error`)))

	for _, page := range []struct{ path, ready string }{
		{"/admin/users", "#new-email"},
		{"/admin/pricing", "main h1"},
		{"/admin/pricing/new", "#pm-name"},
		{"/admin/outbox", "main h1"},
		{"/merchants", "main h1"},
		{"/account/password", "#current_password"},
		{"/no/such/page", "main h1"},
	} {
		if err := chromedp.Do(ctx, chromedp.Navigate(env.URL+page.path)); err != nil {
			t.Fatal(err)
		}
		audit(page.path, chromedp.WaitVisible(chromedp.CSS(page.ready)))
	}

	// The pricing form refused for missing fields.
	if err := chromedp.Do(ctx, chromedp.Navigate(env.URL+"/admin/pricing/new"), chromedp.WaitVisible(chromedp.ID("pm-name")), chromedp.Submit(chromedp.ID("pm-name"))); err != nil {
		t.Fatal(err)
	}
	audit("pricing form with errors", chromedp.WaitVisible(chromedp.ID("pm-name-error")))

	// The audit itself works: an input without a label is reported.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("main").insertAdjacentHTML("beforeend", "<input type=text id=unlabelled>"); true`)); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, v := range a11y.Audit(t, ctx) {
		found = found || v.ID == "label"
	}
	if !found {
		t.Error("the audit did not report an input without a label")
	}
}
