package browser

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"
)

// SignIn signs in through the portal's real sign-in page at base and waits for
// the signed-in user menu, which exists on no page an anonymous visitor sees.
// For a user with two-step sign-in, code gives the authenticator's current
// code (apptest's Env.TOTP), typed on the code page.
func SignIn(t testing.TB, ctx context.Context, base, email, password string, code ...func() string) {
	t.Helper()
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/login"),
		chromedp.WaitVisible(chromedp.ID("email")),
		chromedp.SendKeys(chromedp.ID("email"), email),
		chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Submit(chromedp.ID("password")),
	)
	if err == nil && len(code) > 0 {
		err = chromedp.Do(ctx,
			chromedp.WaitVisible(chromedp.ID("code")),
			chromedp.SendKeys(chromedp.ID("code"), code[0]()),
			chromedp.Submit(chromedp.ID("code")),
		)
	}
	if err == nil {
		err = chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("header details.dropdown summary")))
	}
	if err != nil {
		t.Fatalf("sign in as %s: %v", email, err)
	}
}
