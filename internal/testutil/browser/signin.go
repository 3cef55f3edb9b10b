package browser

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"
)

// SignIn signs in through the portal's real sign-in page at base and waits for
// the signed-in user menu, which exists on no page an anonymous visitor sees.
func SignIn(t testing.TB, ctx context.Context, base, email, password string) {
	t.Helper()
	err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/login"),
		chromedp.WaitVisible(chromedp.ID("email")),
		chromedp.SendKeys(chromedp.ID("email"), email),
		chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Submit(chromedp.ID("password")),
		chromedp.WaitVisible(chromedp.CSS("header details.dropdown summary")),
	)
	if err != nil {
		t.Fatalf("sign in as %s: %v", email, err)
	}
}
