package payments_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/testutil/a11y"
	"github.com/payportal/portal/internal/testutil/browser"
)

// signedInBrowser opens a browser signed in as the merchant's staff member,
// with two-step sign-in.
func (p *portal) signedInBrowser(t *testing.T) context.Context {
	t.Helper()
	ctx := browser.New(t)
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(cancel)
	browser.SignIn(t, ctx, p.env.URL, p.staff.Email, p.password, p.env.TOTP(t, p.staff.Email))
	return ctx
}

func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// fillCard opens the virtual terminal and types a card payment.
func (p *portal) fillCard(t *testing.T, ctx context.Context, amount, number, code string) {
	t.Helper()
	do(t, ctx, "fill the card form",
		chromedp.Navigate(p.env.URL+p.base()+"/payments/new"),
		chromedp.WaitVisible(chromedp.ID("card-amount")),
		chromedp.SendKeys(chromedp.ID("card-amount"), amount),
		chromedp.SendKeys(chromedp.ID("card-number"), number),
		chromedp.SendKeys(chromedp.ID("card-expiry"), expiry()),
		chromedp.SendKeys(chromedp.ID("card-cvc"), code),
		chromedp.SendKeys(chromedp.ID("card-billing-zip"), "94107"),
	)
}

// submit clicks the payment form's button and waits for the page it leads
// to, returning the heading of its status panel (or of its warning).
func submit(t *testing.T, ctx context.Context, form string) string {
	t.Helper()
	do(t, ctx, "submit "+form,
		chromedp.Click(chromedp.CSS(form+" button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("#tx-status .badge, #dup-heading, #review-heading, .error-summary, .flash")),
	)
	return statusText(t, ctx)
}

// statusText reads the status badge of a transaction's page ("" elsewhere).
func statusText(t *testing.T, ctx context.Context) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(function(){ var b = document.querySelector('#tx-status .badge'); return b ? b.textContent.trim() : ''; })()`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fitsTheScreen checks the page scrolls no sideways at phone and desktop
// widths, and passes the accessibility audit.
func fitsTheScreen(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	for _, w := range []int64{390, 1280} {
		do(t, ctx, "resize", chromedp.EmulateViewport(w, 900))
		wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`))
		if err != nil || wide {
			culprits, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll('body *')).filter(function(e){ return e.getBoundingClientRect().right > window.innerWidth + 1; }).slice(0, 6).map(function(e){ return e.tagName + '.' + e.className + '#' + e.id + ' ' + Math.round(e.getBoundingClientRect().right); }).join(', ')`))
			t.Errorf("%s scrolls sideways at %d px (%v): %s", what, w, err, culprits)
		}
	}
	for _, v := range a11y.Audit(t, ctx) {
		t.Errorf("%s: %s", what, v)
	}
}

// TestBrowserSaleAuthorizationCaptureVoidAndReceipt: a card sale with a
// receipt, an authorization captured, a void within the window with its
// countdown, and a double click that charges once.
func TestBrowserSaleAuthorizationCaptureVoidAndReceipt(t *testing.T) {
	t.Parallel()
	p := newPortal(t)
	ctx := p.signedInBrowser(t)

	p.fillCard(t, ctx, "$1,234.50", "4111 1111 1111 1111", "123")
	fitsTheScreen(t, ctx, "the virtual terminal")
	do(t, ctx, "receipt", chromedp.SendKeys(chromedp.ID("card-receipt"), "pat@example.com"))
	if got := submit(t, ctx, "form.pay-form"); got != "Approved" {
		t.Fatalf("sale: %q", got)
	}
	fitsTheScreen(t, ctx, "a transaction's page")
	testutil.Eventually(t, 10*time.Second, "the receipt in the outbox", func() (bool, string) {
		for _, m := range outboxOf(t, p, mail.KindReceipt) {
			if m.To == "pat@example.com" && strings.Contains(m.Text, "Visa ending 1111") && strings.Contains(m.Text, "$1,234.50") {
				return true, ""
			}
		}
		return false, "no receipt"
	})

	// An authorization, then its capture.
	p.fillCard(t, ctx, "80.00", "5555555555554444", "123")
	do(t, ctx, "authorization", chromedp.Click(chromedp.ID("card-action-auth")))
	if got := submit(t, ctx, "form.pay-form"); got != "Authorized" {
		t.Fatalf("authorization: %q", got)
	}
	do(t, ctx, "capture", chromedp.WaitVisible(chromedp.ID("capture-amount")))
	if got := submit(t, ctx, "form.action-form[action$='/capture']"); got != "Captured" {
		t.Fatalf("capture: %q", got)
	}

	// A void within the window: the page counts down the 25 minutes.
	p.fillCard(t, ctx, "15.00", "6011111111111117", "123")
	if got := submit(t, ctx, "form.pay-form"); got != "Approved" {
		t.Fatalf("sale to void: %q", got)
	}
	do(t, ctx, "open Reverse", chromedp.Click(chromedp.CSS(`a[href$="/reverse"]`)), chromedp.WaitVisible(chromedp.ID("reverse-amount")))
	countdown, err := chromedp.Run(ctx, chromedp.Poll[string](`(function(){ var e = document.querySelector('[data-deadline]'); return e && /\d+ min \d\d s left/.test(e.textContent) ? e.textContent : ''; })()`,
		chromedp.WithPollingTimeout(5*time.Second)))
	if err != nil || !strings.HasPrefix(countdown, "24 min") && !strings.HasPrefix(countdown, "25 min") {
		t.Fatalf("countdown %q: %v", countdown, err)
	}
	fitsTheScreen(t, ctx, "the Reverse page")
	submit(t, ctx, "form.pay-form")
	if got := statusText(t, ctx); got != "Voided" {
		t.Fatalf("after the void: %q", got)
	}

	// A double click charges once: the button is disabled on the first.
	p.fillCard(t, ctx, "33.00", "4242424242424242", "123")
	do(t, ctx, "double click",
		js(`(function(){ var b = document.querySelector('form.pay-form button[type=submit]'); b.click(); b.click(); b.form.requestSubmit(); return true; })()`),
		chromedp.WaitVisible(chromedp.CSS("#tx-status .badge")))
	if n := p.upstreamOf("CreditSale"); n != 3 {
		t.Fatalf("%d upstream sales, want 3", n)
	}
	do(t, ctx, "ledger", chromedp.Navigate(p.env.URL+p.base()+"/transactions"), chromedp.WaitVisible(chromedp.CSS(".tx-table")))
	fitsTheScreen(t, ctx, "the ledger")
}

// js runs a script that answers true, as a step.
func js(expr string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Evaluate[bool](expr)(ctx, t)
		return err
	})
}
