package terminals_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/payportal/portal/internal/payments"
	"github.com/payportal/portal/internal/terminals"
	"github.com/payportal/portal/internal/testutil/browser"
)

// A cashier runs a sale on a terminal in a browser: the page follows it
// live, a reload mid-transaction resumes following it, and the result
// arrives without a click. Then a tip (the new total, with the difference
// shown and a warning above 20%) on the sale's own device, and a void.
func TestBrowserSaleTipAndVoid(t *testing.T) {
	t.Parallel()
	p := newPortal(t)
	u, pw := p.cashier(t)
	ctx := p.signIn(t, u, pw)

	p.openForm(t, ctx, "COUNTER-S300", "Sale")
	launch(t, ctx, map[string]string{"launch-amount": "40.00", "launch-invoice": "INV-77"})
	text := waitState(t, ctx, "Waiting for the cardholder")
	if !strings.Contains(text, "To cancel, press Cancel on the terminal") {
		t.Errorf("the waiting page does not say where to cancel:\n%s", text)
	}
	if ref := browser.TextOf(t, ctx, chromedp.CSS("#launch-reference")); ref != "INV-77.1" {
		t.Errorf("reference %q, want INV-77.1", ref)
	}
	// A reload while the cardholder is at the terminal keeps following it.
	do(t, ctx, "reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("launch-status")))
	waitState(t, ctx, "Waiting for the cardholder")
	p.advance(4 * time.Second)
	text = waitState(t, ctx, "Approved")
	if !strings.Contains(text, "Visa ending 4223") || !strings.Contains(text, "$40.00") {
		t.Errorf("approved page:\n%s", text)
	}

	// The tip: the new total, the difference as typed, and the warning.
	do(t, ctx, "open the tip form", chromedp.Click(chromedp.ID("add-tip")), chromedp.WaitVisible(chromedp.ID("launch-amount")))
	do(t, ctx, "type a large total", chromedp.SendKeys(chromedp.ID("launch-amount"), "50.00"))
	if diff := browser.TextOf(t, ctx, chromedp.CSS("#tip-difference")); !strings.Contains(diff, "$10.00") || !strings.Contains(diff, "25%") || !strings.Contains(diff, "above 20%") {
		t.Errorf("tip difference: %q", diff)
	}
	do(t, ctx, "send without confirming", chromedp.Click(chromedp.ID("launch-submit")), chromedp.WaitVisible(chromedp.ID("launch-confirm-tip-error")))
	do(t, ctx, "confirm the tip", chromedp.Click(chromedp.ID("launch-confirm-tip")), chromedp.Click(chromedp.ID("launch-submit")),
		chromedp.WaitVisible(chromedp.ID("launch-status")))
	p.advance(2 * time.Second)
	text = waitState(t, ctx, "Approved")
	if !strings.Contains(text, "$50.00 (tip $10.00)") {
		t.Errorf("tip page:\n%s", text)
	}
	ls := p.launches(t)
	tip, sale := ls[0], ls[1]
	if tip.Kind != terminals.KindTip || tip.DeviceName != "COUNTER-S300" || *tip.OriginalID != sale.ID {
		t.Fatalf("tip: %s on %s of %v", tip.Kind, tip.DeviceName, tip.OriginalID)
	}

	// The void, from the sale's page.
	do(t, ctx, "open the sale", chromedp.Navigate(p.env.URL+terminals.LaunchPath(p.merchantID, sale.ID)),
		chromedp.Click(chromedp.ID("void")), chromedp.WaitVisible(chromedp.ID("launch-submit")))
	do(t, ctx, "send the void", chromedp.Click(chromedp.ID("launch-submit")), chromedp.WaitVisible(chromedp.ID("launch-status")))
	p.advance(2 * time.Second)
	text = waitState(t, ctx, "Approved")
	if !strings.Contains(text, "Taken back") || !strings.Contains(text, "$50.00") {
		t.Errorf("void page:\n%s", text)
	}
	line, err := p.ledger().Get(t.Context(), nil, p.merchantID, sale.ID)
	if err != nil {
		t.Fatal(err)
	}
	if line.Status != payments.StatusVoided || line.TipCents != 1000 || line.Source != payments.SourceTerminal {
		t.Errorf("the sale in the ledger: %s tip %d %s", line.Status, line.TipCents, line.Source)
	}
}
