package accounts_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	sandbox "github.com/payportal/portal/internal/sandbox/accounts"
	"github.com/payportal/portal/internal/testutil/a11y"
	"github.com/payportal/portal/internal/testutil/browser"
)

// TestMerchantCompletesApplicationInBrowser walks the merchant pages as a
// person would: open the link, give the missing bank details, see a wrong
// routing number refused with a clear message, fix it, accept the terms
// and see the confirmation.
func TestMerchantCompletesApplicationInBrowser(t *testing.T) {
	s := newSandbox(t, nil)
	id := s.start(t, detailsWithoutBanking())
	link := s.link(t, id)

	ctx := browser.New(t)
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()

	const (
		account = `#f-banking-depositAccount`
		routing = `#f-banking-depositRouting`
	)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(link),
		chromedp.WaitVisible(chromedp.CSS(routing)),
	); err != nil {
		t.Fatalf("open link: %v", err)
	}
	summary, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(summary, "Corner Coffee") || strings.Contains(summary, "123456789") {
		t.Errorf("details page should show the pre-filled business and mask the SSN:\n%s", summary)
	}
	if a, _ := s.Application(id); a.Status != sandbox.StatusInProgress {
		t.Errorf("status after opening = %s, want inProgress", a.Status)
	}

	if err := chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(account), "000123456789"),
		chromedp.SendKeys(chromedp.CSS(routing), "123456789"),
		chromedp.Click(chromedp.ID("continue")),
		chromedp.WaitVisible(chromedp.ID("f-banking-depositRouting-error")),
	); err != nil {
		t.Fatalf("submit wrong routing number: %v", err)
	}
	msg, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("f-banking-depositRouting-error")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg, "routing number") || !strings.Contains(msg, "ABA checksum") {
		t.Errorf("routing message = %q, want it to explain the checksum", msg)
	}
	// The merchant's page, with its error showing, passes the accessibility audit.
	for _, v := range a11y.Audit(t, ctx) {
		t.Errorf("merchant details page: %s", v)
	}
	kept, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS(account)))
	if err != nil || kept != "000123456789" {
		t.Errorf("account number after the failed post = %q (%v), want it kept", kept, err)
	}

	if err := chromedp.Do(ctx,
		chromedp.Clear(chromedp.CSS(routing)),
		chromedp.SendKeys(chromedp.CSS(routing), "011401533"),
		chromedp.Click(chromedp.ID("continue")),
		chromedp.WaitVisible(chromedp.ID("accept")),
		chromedp.Click(chromedp.ID("accept")),
		chromedp.Click(chromedp.ID("submit-application")),
		chromedp.WaitVisible(chromedp.ID("confirmation")),
	); err != nil {
		t.Fatalf("fix routing number and accept: %v", err)
	}
	shown, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("status")))
	if err != nil {
		t.Fatal(err)
	}
	if shown != "processing" {
		t.Errorf("confirmation shows status %q, want processing", shown)
	}
	a, _ := s.Application(id)
	if a.Status != sandbox.StatusProcessing {
		t.Errorf("status = %s, want processing", a.Status)
	}
	if !strings.Contains(string(a.Data), `"depositRouting":"011401533"`) {
		t.Errorf("bank details not saved: %s", a.Data)
	}
}
