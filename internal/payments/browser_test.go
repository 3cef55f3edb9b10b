package payments_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/payments"
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

// submit clicks the payment form's button and waits for the page the server
// answers with, returning the heading of its status panel ("" on a warning,
// an error or the refund offer). The page being left is marked first: it
// often holds what the answer is recognised by (a transaction's badge and
// flash before a capture, the review warning before "refund anyway"), and
// only an element of the new document counts.
func submit(t *testing.T, ctx context.Context, form string) string {
	t.Helper()
	do(t, ctx, "submit "+form,
		js(`(function(){ document.documentElement.setAttribute('data-left', ''); return true; })()`),
		chromedp.Click(chromedp.CSS(form+" button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(onNewPage("#tx-status .badge", "#dup-heading", "#review-heading", ".error-summary", ".flash"))),
	)
	return statusText(t, ctx)
}

// onNewPage selects any of sels in a document that submit has not marked as
// left.
func onNewPage(sels ...string) string {
	for i, s := range sels {
		sels[i] = "html:not([data-left]) " + s
	}
	return strings.Join(sels, ", ")
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
	do(t, ctx, "receipt", chromedp.Click(chromedp.CSS("details.vt-more > summary")), chromedp.SendKeys(chromedp.ID("card-receipt"), "pat@example.com"))
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

// TestBrowserRefundsAfterSettlementAndACH: a settled sale cannot be voided,
// so Reverse offers a linked refund; a partial refund asks for the go-ahead
// first (the processor holds it for review); an ACH debit is refunded the
// same way.
func TestBrowserRefundsAfterSettlementAndACH(t *testing.T) {
	t.Parallel()
	p := newPortal(t)
	ctx := p.signedInBrowser(t)
	p.fillCard(t, ctx, "40.00", "4111111111111111", "123")
	if got := submit(t, ctx, "form.pay-form"); got != "Approved" {
		t.Fatalf("sale: %q", got)
	}
	saleURL := location(t, ctx)
	// A day later on the sandbox's clock the batch has settled.
	p.clock.Advance(26 * time.Hour)
	do(t, ctx, "open Reverse", chromedp.Navigate(saleURL+"/reverse"), chromedp.WaitVisible(chromedp.ID("reverse-amount")))
	submit(t, ctx, "form.pay-form")
	do(t, ctx, "the refund offer", chromedp.WaitVisible(chromedp.ID("reverse-amount")))
	plan := browser.TextOf(t, ctx, chromedp.CSS(".plan"))
	if !strings.Contains(plan, "has settled") {
		t.Fatalf("after the refused void: %q", plan)
	}
	// Part of it: the warning, then "refund anyway".
	do(t, ctx, "partial refund", browser.Retype("reverse-amount", "10.00"))
	submit(t, ctx, "form.pay-form")
	do(t, ctx, "the review warning", chromedp.WaitVisible(chromedp.ID("review-heading")), chromedp.Click(chromedp.ID("reverse-ack")))
	if got := submit(t, ctx, "form.pay-form"); got != "Partly refunded" {
		t.Fatalf("after the partial refund: %q", got)
	}
	// The rest.
	do(t, ctx, "open Reverse again", chromedp.Navigate(saleURL+"/reverse"), chromedp.WaitVisible(chromedp.ID("reverse-amount")))
	if v, _ := chromedp.Run(ctx, chromedp.Value(chromedp.ID("reverse-amount"))); v != "30.00" {
		t.Fatalf("left to refund: %q", v)
	}
	submit(t, ctx, "form.pay-form")
	do(t, ctx, "the review warning again", chromedp.WaitVisible(chromedp.ID("review-heading")), chromedp.Click(chromedp.ID("reverse-ack")))
	if got := submit(t, ctx, "form.pay-form"); got != "Refunded" {
		t.Fatalf("after the whole refund: %q", got)
	}
	if n := p.upstreamOf("CreditReturn"); n != 2 {
		t.Fatalf("%d upstream returns", n)
	}

	// ACH: a debit with the customer's authorization, settled, refunded.
	do(t, ctx, "fill the ACH form",
		chromedp.Navigate(p.env.URL+p.base()+"/payments/new?tab=ach"),
		chromedp.WaitVisible(chromedp.ID("ach-amount")),
		chromedp.SendKeys(chromedp.ID("ach-amount"), "250.00"),
		chromedp.SendKeys(chromedp.ID("ach-holder"), "Pat Doe"),
		chromedp.SendKeys(chromedp.ID("ach-routing"), "011401534"),
		chromedp.SendKeys(chromedp.ID("ach-account"), "123456789"),
		chromedp.SetValue(chromedp.ID("ach-how"), "phone"),
	)
	// A wrong routing number and no authorization: both said, the rest kept.
	submit(t, ctx, "form.pay-form")
	summary := browser.TextOf(t, ctx, chromedp.CSS(".error-summary"))
	if !strings.Contains(summary, "routing number") || !strings.Contains(summary, "authorize") {
		t.Fatalf("ACH problems: %q", summary)
	}
	if v, _ := chromedp.Run(ctx, chromedp.Value(chromedp.ID("ach-holder"))); v != "Pat Doe" {
		t.Fatalf("holder not kept: %q", v)
	}
	if v, _ := chromedp.Run(ctx, chromedp.Value(chromedp.ID("ach-account"))); v != "" {
		t.Fatal("the account number came back")
	}
	do(t, ctx, "correct the ACH form",
		browser.Retype("ach-routing", "011401533"),
		chromedp.SendKeys(chromedp.ID("ach-account"), "123456789"),
		chromedp.Click(chromedp.ID("ach-authorized")),
	)
	if got := submit(t, ctx, "form.pay-form"); got != "Approved" {
		t.Fatalf("ACH debit: %q", got)
	}
	saleURL = location(t, ctx)
	p.settle()
	do(t, ctx, "reverse the debit", chromedp.Navigate(saleURL+"/reverse"), chromedp.WaitVisible(chromedp.ID("reverse-amount")))
	submit(t, ctx, "form.pay-form")
	do(t, ctx, "the refund offer", chromedp.WaitVisible(chromedp.ID("reverse-amount")))
	if got := submit(t, ctx, "form.pay-form"); got != "Refunded" {
		t.Fatalf("ACH refund: %q", got)
	}
	if n := p.upstreamOf("AchReturn"); n != 1 {
		t.Fatalf("%d upstream ACH returns", n)
	}
}

// TestBrowserSavedCardWithConsent: a customer, a card saved only with the
// consent ticked by the user, and a payment with it.
func TestBrowserSavedCardWithConsent(t *testing.T) {
	t.Parallel()
	p := newPortal(t)
	ctx := p.signedInBrowser(t)
	do(t, ctx, "add a customer",
		chromedp.Navigate(p.env.URL+p.base()+"/customers"),
		chromedp.WaitVisible(chromedp.ID("c-name")),
		chromedp.SendKeys(chromedp.ID("c-name"), "Sam Regular"),
		chromedp.SendKeys(chromedp.ID("c-email"), "sam@example.com"),
		chromedp.Submit(chromedp.ID("c-name")),
		chromedp.WaitVisible(chromedp.ID("save-number")),
	)
	fitsTheScreen(t, ctx, "a customer's page")
	ticked, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById('save-consent').checked`))
	if ticked {
		t.Fatal("the consent is ticked for the user")
	}
	do(t, ctx, "a card without consent",
		chromedp.SendKeys(chromedp.ID("save-number"), "4242 4242 4242 4242"),
		chromedp.SendKeys(chromedp.ID("save-expiry"), expiry()),
		chromedp.SetValue(chromedp.ID("save-consent-how"), "phone"),
		chromedp.Click(chromedp.CSS("form[action$='/methods'] button[type=submit]")),
		chromedp.WaitVisible(chromedp.ID("save-consent-error")),
	)
	if p.upstreamOf("CreditSaveCard") != 0 {
		t.Fatal("saved without consent")
	}
	do(t, ctx, "with consent",
		chromedp.SendKeys(chromedp.ID("save-number"), "4242 4242 4242 4242"),
		chromedp.Click(chromedp.ID("save-consent")),
		chromedp.Click(chromedp.CSS("form[action$='/methods'] button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(".methods")),
	)
	methods := browser.TextOf(t, ctx, chromedp.CSS(".methods"))
	if !strings.Contains(methods, "Visa ending 4242") || !strings.Contains(methods, "save-method-2026-11") || !strings.Contains(methods, "phone") {
		t.Fatalf("saved methods: %q", methods)
	}
	do(t, ctx, "pay with it",
		chromedp.Click(chromedp.CSS(`a[href*="tab=saved"]`)),
		chromedp.WaitVisible(chromedp.ID("saved-amount")),
		chromedp.SendKeys(chromedp.ID("saved-amount"), "18.75"),
	)
	if got := submit(t, ctx, "form.pay-form"); got != "Approved" {
		t.Fatalf("payment with the saved card: %q", got)
	}
	if n := p.upstreamOf("CreditSale"); n != 1 {
		t.Fatalf("%d upstream sales", n)
	}
	var consents int
	if err := p.env.DB.Pool.QueryRow(t.Context(), `SELECT COUNT(*) FROM payment_consents WHERE purpose = 'save_method'
		AND text_version = 'save-method-2026-11' AND given_how = 'phone' AND recorded_by = $1 AND customer_id IS NOT NULL
		AND saved_method_id IS NOT NULL`, p.staff.ID).Scan(&consents); err != nil || consents != 1 {
		t.Fatalf("%d consents recorded (%v)", consents, err)
	}
}

// location is the address of the page open in the tab.
func location(t *testing.T, ctx context.Context) string {
	t.Helper()
	u, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestBrowserNeverChargesTwice: two tabs with the same payment (the second
// is warned and sends nothing), the back button after a payment, and a
// processor that acts then drops the connection: each ends with the one
// upstream transaction.
func TestBrowserNeverChargesTwice(t *testing.T) {
	t.Parallel()
	p := newPortal(t)
	ctx := p.signedInBrowser(t)

	// Two tabs, each with its own form, the same card and amount.
	tab2, cancel := chromedp.NewContext(ctx)
	defer cancel()
	p.fillCard(t, ctx, "61.00", "4111111111111111", "123")
	p.fillCard(t, tab2, "61.00", "4111 1111 1111 1111", "123")
	if got := submit(t, ctx, "form.pay-form"); got != "Approved" {
		t.Fatalf("first tab: %q", got)
	}
	submit(t, tab2, "form.pay-form")
	warning := browser.TextOf(t, tab2, chromedp.CSS("#dup-heading"))
	if !strings.Contains(warning, "already taken") || p.upstreamOf("CreditSale") != 1 {
		t.Fatalf("second tab: %q, %d upstream sales", warning, p.upstreamOf("CreditSale"))
	}
	if v, _ := chromedp.Run(tab2, chromedp.Value(chromedp.ID("card-number"))); v != "" {
		t.Fatal("the warning page holds the card number")
	}
	// An explicit "charge again" (the card typed again) does charge.
	do(t, tab2, "charge again", chromedp.SendKeys(chromedp.ID("card-number"), "4111111111111111"), chromedp.Click(chromedp.ID("card-confirm")))
	if got := submit(t, tab2, "form.pay-form"); got != "Approved" || p.upstreamOf("CreditSale") != 2 {
		t.Fatalf("charge again: %q, %d upstream sales", got, p.upstreamOf("CreditSale"))
	}

	// The back button after a payment, and the form sent again. Chromium
	// here keeps no back-forward cache (chromedp cannot follow a page restored
	// from it), so the form comes back fresh from the server: the card typed
	// again with the same amount is warned as a duplicate, never charged.
	// (A page restored from the cache still holds its token, which the
	// server answers with the transaction it made: TestCardSaleThroughThePages.)
	back := browser.New(t, chromedp.Flag("disable-features", "BackForwardCache"))
	back, cancelBack := context.WithTimeout(back, 2*time.Minute)
	defer cancelBack()
	browser.SignIn(t, back, p.env.URL, p.staff.Email, p.password, p.env.TOTP(t, p.staff.Email))
	p.fillCard(t, back, "62.00", "5555555555554444", "123")
	if got := submit(t, back, "form.pay-form"); got != "Approved" {
		t.Fatalf("sale: %q", got)
	}
	do(t, back, "back", chromedp.NavigateBack(), chromedp.WaitVisible(chromedp.ID("card-amount")))
	if v, _ := chromedp.Run(back, chromedp.Value(chromedp.ID("card-number"))); v != "" {
		t.Fatal("the card number came back with the page")
	}
	do(t, back, "type it again", chromedp.SendKeys(chromedp.ID("card-number"), "5555555555554444"))
	if v, _ := chromedp.Run(back, chromedp.Value(chromedp.ID("card-amount"))); v == "" {
		do(t, back, "amount", chromedp.SendKeys(chromedp.ID("card-amount"), "62.00"), chromedp.SendKeys(chromedp.ID("card-expiry"), expiry()))
	}
	submit(t, back, "form.pay-form")
	page := browser.TextOf(t, back, chromedp.CSS("main"))
	if !strings.Contains(page, "already sent") && !strings.Contains(page, "already taken") {
		t.Fatalf("sent again after the back button:\n%s", page)
	}
	if n := p.upstreamOf("CreditSale"); n != 3 {
		t.Fatalf("%d upstream sales after the back button, want 3", n)
	}

	// The processor acts and drops the connection: the portal reads the
	// sale back and shows it approved, once.
	p.env.Sandbox.Root.Faults().FailNext("payments", -1)
	p.fillCard(t, ctx, "63.00", "6011111111111117", "123")
	if got := submit(t, ctx, "form.pay-form"); got != "Approved" {
		t.Fatalf("act then drop: %q", got)
	}
	if n := p.upstreamOf("CreditSale"); n != 4 {
		t.Fatalf("%d upstream sales after act-then-drop, want 4", n)
	}
	rows, _ := p.env.App.Payments.Ledger().List(t.Context(), nil, payments.Filter{MerchantID: p.merchant})
	if len(rows.Transactions) != 4 {
		t.Fatalf("%d ledger rows, want 4", len(rows.Transactions))
	}
}
