package insights_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/payportal/portal/internal/testutil/a11y"
	"github.com/payportal/portal/internal/testutil/browser"
)

// The Insights page passes the accessibility audit and never scrolls sideways, on a
// phone (390 px) and on a desktop (1280 px), for an admin and for a rep.
func TestBrowserInsightsPageIsAccessibleAndFits(t *testing.T) {
	t.Parallel()
	s := seed(t)
	ctx, cancel := context.WithTimeout(browser.New(t), 180*time.Second)
	defer cancel()
	url := s.env.URL + "/insights?from=" + s.from + "&to=" + s.to

	check := func(who string) {
		t.Helper()
		for _, width := range []int64{1280, 390} {
			err := chromedp.Do(ctx,
				chromedp.EmulateViewport(width, 900),
				chromedp.Navigate(url),
				chromedp.WaitVisible(chromedp.ID("funnel-table")),
			)
			if err != nil {
				t.Fatalf("%s at %d px: %v", who, width, err)
			}
			for _, v := range a11y.Audit(t, ctx) {
				t.Errorf("%s at %d px: %s", who, width, v)
			}
			sideways, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > document.documentElement.clientWidth`))
			if err != nil {
				t.Fatal(err)
			}
			if sideways {
				t.Errorf("%s at %d px: the page scrolls sideways", who, width)
			}
			charts, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('svg[role="img"] > title').length`))
			if err != nil || charts != 2 {
				t.Errorf("%s at %d px: %d titled charts (%v)", who, width, charts, err)
			}
		}
	}
	browser.SignIn(t, ctx, s.env.URL, "admin@example.com", s.passwords["admin@example.com"], s.env.TOTP(t, "admin@example.com"))
	check("admin")
	// The filters refused: still accessible.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(s.env.URL+"/insights?from=2026-12-01&to=2026-11-01"),
		chromedp.WaitVisible(chromedp.ID("to-error"))); err != nil {
		t.Fatal(err)
	}
	for _, v := range a11y.Audit(t, ctx) {
		t.Errorf("refused filters: %s", v)
	}

	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('form[action="/logout"]').submit(); true`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.ID("email"))); err != nil {
		t.Fatal(err)
	}
	browser.SignIn(t, ctx, s.env.URL, "alice@example.com", s.passwords["alice@example.com"])
	check("rep")
}
