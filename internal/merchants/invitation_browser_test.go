package merchants_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/payportal/portal/internal/auth"
	"github.com/payportal/portal/internal/testutil/a11y"
	"github.com/payportal/portal/internal/testutil/browser"
)

// checkPage audits the page open in ctx with axe-core and checks that it
// never scrolls sideways, on a desktop and on a 390-pixel phone.
func checkPage(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	for _, width := range []int64{1280, 390} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900)); err != nil {
			t.Fatal(err)
		}
		wide, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.scrollWidth <= window.innerWidth ? "" :
			Array.from(document.querySelectorAll("body *")).filter(e => e.getBoundingClientRect().right > window.innerWidth + 1)
				.slice(0, 5).map(e => e.tagName + "#" + e.id + "." + e.className + " " + (e.textContent || "").trim().slice(0, 40)).join(" | ")`))
		if err != nil {
			t.Fatal(err)
		}
		if wide != "" {
			t.Errorf("%s scrolls sideways at %d px: %s", name, width, wide)
		}
		for _, v := range a11y.Audit(t, ctx) {
			t.Errorf("%s at %d px: %s", name, width, v)
		}
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 1024)); err != nil {
		t.Fatal(err)
	}
}

func step(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	return browser.TextOf(t, ctx, chromedp.CSS(sel))
}

// A merchant-user invitation end to end in real browsers: the owning rep
// invites a clerk with the right to take payments from the merchant's page;
// the clerk opens the e-mailed link (from the outbox), chooses a password,
// must set up two-step sign-in because that right moves money, and lands on
// the merchant. The merchants' pages pass the accessibility audit and never
// scroll sideways; so does the admin's credential form with a refused value.
func TestBrowserMerchantUserInvitation(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	id, _, _ := w.boarded(t, w.rep, "Blue Fern Coffee Roasters and Bakery Company")
	w.adminC.Get("/merchants/" + id.String())
	w.adminC.PostForm("/merchants/"+id.String()+"/locations", map[string][]string{"location_id": {"YZM-5B5-RAC"}, "location_name": {"Main counter"}, "test_mode": {"on"}})
	page := "/merchants/" + id.String()

	root, cancel := context.WithTimeout(browser.New(t), 3*time.Minute)
	defer cancel()
	browser.AcceptAllDialogs(t, root)

	// The admin: the list, the page, a refused token.
	admin, cancelAdmin := chromedp.NewContext(root, chromedp.WithNewBrowserContext())
	defer cancelAdmin()
	browser.SignIn(t, admin, w.env.URL, w.admin.Email, w.adminPW, w.env.TOTP(t, w.admin.Email))
	step(t, admin, "the list", chromedp.Navigate(w.env.URL+"/merchants"), chromedp.WaitVisible(chromedp.CSS(`tr[data-merchant="`+id.String()+`"]`)))
	checkPage(t, admin, "the merchants list")
	step(t, admin, "the merchant page", chromedp.Navigate(w.env.URL+page), chromedp.WaitVisible(chromedp.ID("credentials-heading")))
	checkPage(t, admin, "the merchant page (admin)")
	step(t, admin, "a refused token",
		chromedp.Click(chromedp.CSS("#payments details summary")),
		chromedp.SendKeys(chromedp.ID("oid"), "ACME-OID-1"),
		chromedp.SendKeys(chromedp.ID("token"), "too short"),
		chromedp.Click(chromedp.ID("save-payments")),
		chromedp.WaitVisible(chromedp.ID("token-error")))
	checkPage(t, admin, "the payment account form with a refused token")

	// The owning rep invites the clerk, keyboard and all.
	rep, cancelRep := chromedp.NewContext(root, chromedp.WithNewBrowserContext())
	defer cancelRep()
	browser.SignIn(t, rep, w.env.URL, w.rep.Email, w.repPW)
	step(t, rep, "open the merchant", chromedp.Navigate(w.env.URL+page), chromedp.WaitVisible(chromedp.ID("people-heading")))
	step(t, rep, "invite the clerk",
		chromedp.Click(chromedp.CSS("#invite summary")),
		chromedp.SendKeys(chromedp.ID("invite-email"), "clerk@bluefern.example"),
		chromedp.SendKeys(chromedp.ID("invite-name"), "Casey Clerk"),
		chromedp.Click(chromedp.ID("invite-take_payments")),
		chromedp.Click(chromedp.ID("send-invitation")),
		chromedp.WaitVisible(chromedp.CSS(`li[data-member="clerk@bluefern.example"]`)))
	if got := text(t, rep, `li[data-member="clerk@bluefern.example"] .member-permissions`); got != "Take payments" {
		t.Errorf("the page shows the clerk may %q", got)
	}
	if flash := text(t, rep, "#flashes"); !strings.Contains(flash, "Invitation e-mailed to clerk@bluefern.example") {
		t.Errorf("flash: %q", flash)
	}
	checkPage(t, rep, "the merchant page (owning rep)")

	// The clerk, in a browser of their own.
	link := invitationLink(t, w, "clerk@bluefern.example")
	clerk, cancelClerk := chromedp.NewContext(root, chromedp.WithNewBrowserContext())
	defer cancelClerk()
	const password = "Correct-horse-battery-staple-42"
	step(t, clerk, "choose a password",
		chromedp.Navigate(w.env.URL+link),
		chromedp.WaitVisible(chromedp.ID("new_password")),
		chromedp.SendKeys(chromedp.ID("new_password"), password),
		chromedp.SendKeys(chromedp.ID("confirm_password"), password),
		chromedp.Submit(chromedp.ID("confirm_password")),
		chromedp.WaitVisible(chromedp.ID("mfa-secret")))
	checkPage(t, clerk, "the two-step set-up")
	secret := strings.ReplaceAll(text(t, clerk, "#mfa-secret"), " ", "")
	step(t, clerk, "turn on two-step sign-in",
		chromedp.SendKeys(chromedp.ID("code"), auth.TOTPCode(secret, w.env.Clock.Now())),
		chromedp.Submit(chromedp.ID("code")),
		chromedp.WaitVisible(chromedp.ID("recovery-codes")),
		chromedp.Click(chromedp.CSS(`a[role="button"]`)),
		chromedp.WaitVisible(chromedp.ID("your-permissions")))
	location, err := chromedp.Run(clerk, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(location, page) {
		t.Errorf("the clerk landed on %s, want their merchant", location)
	}
	if got := text(t, clerk, "#your-permissions"); !strings.Contains(got, "Take payments") || strings.Contains(got, "Refund") {
		t.Errorf("the clerk's permissions: %q", got)
	}
	if got := text(t, clerk, "main"); strings.Contains(got, "People of the merchant") || strings.Contains(got, "Credentials") {
		t.Error("the clerk sees what only staff may")
	}
	checkPage(t, clerk, "the merchant page (merchant user)")
	u, err := w.env.App.Auth.Users().ByEmail(context.Background(), "clerk@bluefern.example")
	if err != nil || !u.MFAEnabled() {
		t.Errorf("the clerk's two-step sign-in is not on: %v", err)
	}
}
