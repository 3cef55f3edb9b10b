package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
	"github.com/payportal/portal/internal/testutil/browser"
)

func TestBrowserLoginShowsDashboard(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	_, pw := env.CreateUser(t, "rep@example.com", models.RoleSalesRep)
	ctx := browser.New(t)
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()

	// A wrong password shows the message and keeps the e-mail typed.
	err := chromedp.Do(ctx,
		chromedp.Navigate(env.URL+"/"),
		chromedp.WaitVisible(chromedp.ID("email")),
		chromedp.SendKeys(chromedp.ID("email"), "rep@example.com"),
		chromedp.SendKeys(chromedp.ID("password"), "not the password"),
		chromedp.Submit(chromedp.ID("password")),
		chromedp.WaitVisible(chromedp.ID("login-error")),
	)
	if err != nil {
		t.Fatalf("wrong password: %v", err)
	}
	msg, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("login-error")))
	if err != nil || msg != "The e-mail address or password is incorrect." {
		t.Fatalf("error message %q %v", msg, err)
	}
	typed, err := chromedp.Run(ctx, chromedp.Value(chromedp.ID("email")))
	if err != nil || typed != "rep@example.com" {
		t.Fatalf("e-mail not kept: %q %v", typed, err)
	}

	// The right password lands on the dashboard, with the rep's navigation.
	err = chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("password"), pw),
		chromedp.Submit(chromedp.ID("password")),
		// The user menu exists only for a signed-in user, so this cannot match the sign-in page.
		chromedp.WaitVisible(chromedp.CSS("header details.dropdown summary")),
	)
	if err != nil {
		t.Fatalf("sign in: %v", err)
	}
	heading, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main h1")))
	if err != nil || !strings.Contains(heading, "Applications") {
		t.Fatalf("dashboard heading %q %v", heading, err)
	}
	nav, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("header nav")))
	if err != nil || !strings.Contains(nav, "rep@example.com") || strings.Contains(nav, "Users") {
		t.Fatalf("navigation %q %v", nav, err)
	}
	// The page ran with the strict CSP: htmx loaded from /assets and initialised.
	loaded, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`typeof htmx !== "undefined"`))
	if err != nil || !loaded {
		t.Fatalf("htmx not loaded under the CSP: %v", err)
	}
}
