package accounts_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/payportal/portal/internal/testutil/a11y"
	"github.com/payportal/portal/internal/testutil/browser"
)

// TestMerchantEditsInBrowser: the merchant opens the link, changes the
// business phone from the summary, sees a wrong number refused in the
// error summary and beside the field, corrects it and sees it saved.
func TestMerchantEditsInBrowser(t *testing.T) {
	s := newSandbox(t, nil)
	d := completeDetails("123456789", "Corner Coffee")
	id := s.start(t, d)
	link := s.link(t, id)
	ctx := browser.New(t)
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()

	if err := chromedp.Do(ctx,
		chromedp.Navigate(link),
		chromedp.WaitVisible(chromedp.CSS(`a[aria-label="Change business"]`)),
		chromedp.Click(chromedp.CSS(`a[aria-label="Change business"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#f-business-phone`)),
	); err != nil {
		t.Fatalf("open the business form: %v", err)
	}
	shown, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS(`#f-business-phone`)))
	if err != nil || shown != "(512) 555-0134" {
		t.Errorf("phone shown as %q (%v), want (512) 555-0134", shown, err)
	}
	if err := chromedp.Do(ctx,
		chromedp.Clear(chromedp.CSS(`#f-business-phone`)),
		chromedp.SendKeys(chromedp.CSS(`#f-business-phone`), "555-0142"),
		chromedp.Click(chromedp.CSS(`#save`)),
		chromedp.WaitVisible(chromedp.CSS(`#error-summary`)),
	); err != nil {
		t.Fatalf("save a wrong phone: %v", err)
	}
	summary, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#error-summary`)))
	if err != nil || !strings.Contains(summary, "Business phone: Must be a 10-digit US phone number.") {
		t.Errorf("error summary = %q (%v)", summary, err)
	}
	href, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(`#error-summary a`), "href"))
	if err != nil || href.Value != "#f-business-phone" {
		t.Errorf("summary link = %q (%v), want #f-business-phone", href.Value, err)
	}
	for _, v := range a11y.Audit(t, ctx) {
		t.Errorf("edit page with errors: %s", v)
	}
	if err := chromedp.Do(ctx,
		chromedp.Clear(chromedp.CSS(`#f-business-phone`)),
		chromedp.SendKeys(chromedp.CSS(`#f-business-phone`), "503.555.0142"),
		chromedp.Click(chromedp.CSS(`#save`)),
		chromedp.WaitVisible(chromedp.CSS(`#notice`)),
	); err != nil {
		t.Fatalf("save a good phone: %v", err)
	}
	page, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`main`)))
	if err != nil || !strings.Contains(page, "(503) 555-0142") || !strings.Contains(page, "Your changes are saved.") {
		t.Errorf("details after saving:\n%s (%v)", page, err)
	}
	a, _ := s.Application(id)
	if !strings.Contains(string(a.Data), `"phone":"5035550142"`) || len(a.Changes) != 1 {
		t.Errorf("saved data %s, changes %+v", a.Data, a.Changes)
	}
}

// TestBankLinkInBrowser: the merchant links a test bank instead of typing
// the numbers, after a wrong password, then accepts the terms.
func TestBankLinkInBrowser(t *testing.T) {
	s := newSandbox(t, nil)
	id := s.start(t, detailsWithoutBanking())
	link := s.link(t, id)
	ctx := browser.New(t)
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()

	if err := chromedp.Do(ctx,
		chromedp.Navigate(link),
		chromedp.WaitVisible(chromedp.CSS(`#bank-link`)),
		chromedp.Click(chromedp.CSS(`#bank-link`)),
		chromedp.WaitVisible(chromedp.CSS(`#institution-ins_109508`)),
		chromedp.Click(chromedp.CSS(`#institution-ins_109508`)),
		chromedp.Click(chromedp.CSS(`#choose-bank`)),
		chromedp.WaitVisible(chromedp.CSS(`#bank-username`)),
		chromedp.SendKeys(chromedp.CSS(`#bank-username`), "user_good"),
		chromedp.SendKeys(chromedp.CSS(`#bank-password`), "pass_bad"),
		chromedp.Click(chromedp.CSS(`#bank-submit`)),
		chromedp.WaitVisible(chromedp.CSS(`#bank-error`)),
	); err != nil {
		t.Fatalf("sign in with a wrong password: %v", err)
	}
	msg, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#bank-error`)))
	if err != nil || !strings.Contains(msg, "not correct") || !strings.Contains(msg, "INVALID_CREDENTIALS") {
		t.Errorf("bank error = %q (%v)", msg, err)
	}
	for _, v := range a11y.Audit(t, ctx) {
		t.Errorf("bank sign-in with an error: %s", v)
	}
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`#bank-password`), "pass_good"),
		chromedp.Click(chromedp.CSS(`#bank-submit`)),
		chromedp.WaitVisible(chromedp.CSS(`#account-chk`)),
		chromedp.Click(chromedp.CSS(`#account-chk`)),
		chromedp.Click(chromedp.CSS(`#link-account`)),
		chromedp.WaitVisible(chromedp.CSS(`#notice`)),
		chromedp.Click(chromedp.CSS(`#continue`)),
		chromedp.WaitVisible(chromedp.CSS(`#accept`)),
		chromedp.Click(chromedp.CSS(`#accept`)),
		chromedp.Click(chromedp.CSS(`#submit-application`)),
		chromedp.WaitVisible(chromedp.CSS(`#confirmation`)),
	); err != nil {
		t.Fatalf("link the bank and accept: %v", err)
	}
	a, _ := s.Application(id)
	if !strings.Contains(string(a.Data), `"depositRouting":"011401533"`) || !strings.Contains(string(a.Data), `"depositAccount":"1111222233330000"`) {
		t.Errorf("bank details not filled: %s", a.Data)
	}
}
