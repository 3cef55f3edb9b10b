package pricing_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
	"github.com/payportal/portal/internal/testutil/browser"
)

// An admin's new pricing model is offered to reps at once; once archived it is
// no longer offered for new applications.
func TestBrowserPricingModelOfferedThenArchived(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	_, adminPW := env.CreateUser(t, "admin@example.com", models.RoleAdmin)
	_, repPW := env.CreateUser(t, "rep@example.com", models.RoleSalesRep)

	admin, cancelAdmin := context.WithTimeout(browser.New(t), 90*time.Second)
	defer cancelAdmin()
	rep, cancelRep := context.WithTimeout(browser.New(t), 90*time.Second)
	defer cancelRep()
	browser.SignIn(t, admin, env.URL, "admin@example.com", adminPW, env.TOTP(t, "admin@example.com"))
	browser.SignIn(t, rep, env.URL, "rep@example.com", repPW)

	err := chromedp.Do(admin,
		chromedp.Navigate(env.URL+"/admin/pricing/new"),
		chromedp.WaitVisible(chromedp.ID("pm-name")),
		chromedp.SendKeys(chromedp.ID("pm-name"), "Retail swipe"),
		chromedp.SendKeys(chromedp.ID("pm-code"), "RETAIL-SWIPE-1"),
		chromedp.SendKeys(chromedp.ID("pm-fee"), "2.6% + 10¢ per card sale"),
		chromedp.Click(chromedp.ID("pm-device-no")),
		chromedp.Submit(chromedp.ID("pm-name")),
		chromedp.WaitVisible(chromedp.CSS(`button[aria-label="Archive Retail swipe"]`)),
	)
	if err != nil {
		t.Fatalf("admin creates a model: %v", err)
	}

	if got := offeredModels(t, rep, env.URL); !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "Retail swipe") }) {
		t.Fatalf("rep is not offered the new model; options: %q", got)
	}

	err = chromedp.Do(admin,
		chromedp.Navigate(env.URL+"/admin/pricing"),
		chromedp.Click(chromedp.CSS(`button[aria-label="Archive Retail swipe"]`)),
		// Only an archived model has a Restore button.
		chromedp.WaitVisible(chromedp.CSS(`form[action$="/restore"] button`)),
	)
	if err != nil {
		t.Fatalf("admin archives the model: %v", err)
	}
	if got := offeredModels(t, rep, env.URL); slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "Retail swipe") }) {
		t.Fatalf("rep is still offered the archived model; options: %q", got)
	}
}

// offeredModels starts a new application from the dashboard and lists the
// pricing models its form offers.
func offeredModels(t *testing.T, ctx context.Context, base string) []string {
	t.Helper()
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(chromedp.ID("new-application")),
		chromedp.Click(chromedp.ID("new-application")),
		chromedp.WaitReady(chromedp.CSS(`select[name="pricing.model"]`)),
	)
	if err != nil {
		t.Fatalf("new application: %v", err)
	}
	options, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll('select[name="pricing.model"] option')).map(o => o.textContent.trim())`))
	if err != nil {
		t.Fatalf("read pricing options: %v", err)
	}
	return options
}
