package terminals_test

import (
	"context"
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

// A declined card, a transaction cancelled at the terminal and one the
// terminal gave up on (no card presented): each says so, charges nothing
// and frees the device.
func TestBrowserDeclinedCancelledAndTimedOut(t *testing.T) {
	t.Parallel()
	p := newPortal(t)
	u, pw := p.cashier(t)
	ctx := p.signIn(t, u, pw)
	for _, tc := range []struct {
		amount, state, says string
		wait                time.Duration
	}{
		{"12.51", "Declined", "The card was declined", 4 * time.Second},
		{"12.52", "Cancelled at the terminal", "Cancelled at the terminal", 4 * time.Second},
		{"12.53", "Timed out at the terminal", "The terminal gave up waiting for a card", 61 * time.Second},
	} {
		p.openForm(t, ctx, "EMULATOR", "Sale")
		launch(t, ctx, map[string]string{"launch-amount": tc.amount, "launch-invoice": "INV-9"})
		waitState(t, ctx, "Waiting for the cardholder")
		p.advance(tc.wait)
		text := waitState(t, ctx, tc.state)
		if !strings.Contains(text, tc.says) || !strings.Contains(text, "Nothing was charged") {
			t.Errorf("%s:\n%s", tc.amount, text)
		}
		line, err := p.ledger().Get(t.Context(), nil, p.merchantID, p.launches(t)[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		if line.ApprovedCents != 0 || line.Status.Succeeded() {
			t.Errorf("%s in the ledger: %s %d", tc.amount, line.Status, line.ApprovedCents)
		}
	}
	// Nothing was approved, so the invoice's next payment is still .1.
	for _, l := range p.launches(t) {
		if l.TransactionRef != "INV-9.1" {
			t.Errorf("reference %q after declines", l.TransactionRef)
		}
	}
}

// Save card (with the cardholder's consent), a sale with the saved card, and
// a return linked to a sale: it needs a reason, cannot exceed what is left
// of the sale, and joins the ledger as that sale's refund.
func TestBrowserSaveCardTokenSaleAndReturn(t *testing.T) {
	t.Parallel()
	p := newPortal(t)
	u, pw := p.cashier(t)
	ctx := p.signIn(t, u, pw)

	p.openForm(t, ctx, "TABLE-D210", "Save card")
	do(t, ctx, "send without consent", chromedp.Click(chromedp.ID("launch-submit")), chromedp.WaitVisible(chromedp.ID("launch-consent-error")))
	do(t, ctx, "tick the consent", chromedp.Click(chromedp.ID("launch-consent")))
	launch(t, ctx, nil)
	p.advance(4 * time.Second)
	waitState(t, ctx, "Approved")
	do(t, ctx, "charge the saved card", chromedp.Click(chromedp.ID("charge-card")), chromedp.WaitVisible(chromedp.ID("launch-amount")))
	do(t, ctx, "pick the card", chromedp.Click(chromedp.ID("card-0")))
	launch(t, ctx, map[string]string{"launch-amount": "25.00", "launch-invoice": "SUB-1"})
	p.advance(2 * time.Second)
	text := waitState(t, ctx, "Approved")
	if !strings.Contains(text, "Token") || !strings.Contains(text, "$25.00") {
		t.Errorf("token sale:\n%s", text)
	}
	sale := p.launches(t)[0]
	if sale.Kind != terminals.KindTokenSale {
		t.Fatalf("newest launch is a %s", sale.Kind)
	}

	p.openForm(t, ctx, "EMULATOR", "Return")
	do(t, ctx, "link the sale", chromedp.SetValue(chromedp.ID("launch-linked"), sale.ID.String()))
	do(t, ctx, "send without a reason", chromedp.SendKeys(chromedp.ID("launch-amount"), "30.00"),
		chromedp.Click(chromedp.ID("launch-submit")), chromedp.WaitVisible(chromedp.ID("launch-reason-error")))
	do(t, ctx, "give a reason", chromedp.SendKeys(chromedp.ID("launch-reason"), "Damaged goods"),
		chromedp.Click(chromedp.ID("launch-submit")), chromedp.WaitVisible(chromedp.ID("launch-amount-error")))
	if msg := browser.TextOf(t, ctx, chromedp.CSS("#launch-amount-error")); !strings.Contains(msg, "$25.00") {
		t.Errorf("cap message: %q", msg)
	}
	do(t, ctx, "return less", browser.Retype("launch-amount", "20.00"), chromedp.Click(chromedp.ID("launch-submit")),
		chromedp.WaitVisible(chromedp.ID("launch-status")))
	p.advance(4 * time.Second)
	waitState(t, ctx, "Approved")
	ret := p.launches(t)[0]
	line, err := p.ledger().Get(t.Context(), nil, p.merchantID, ret.ID)
	if err != nil {
		t.Fatal(err)
	}
	if line.Kind != payments.KindRefund || line.ParentID == nil || *line.ParentID != sale.ID || line.ApprovedCents != 2000 {
		t.Errorf("the return in the ledger: %s of %v, %d", line.Kind, line.ParentID, line.ApprovedCents)
	}
	if orig, _ := p.ledger().Get(t.Context(), nil, p.merchantID, sale.ID); orig.RefundedCents != 2000 {
		t.Errorf("the sale's refunded amount: %d", orig.RefundedCents)
	}

	// One ledger: the list, the export, the batch view and the timeline
	// hold the terminal's transactions beside the keyed ones.
	c := p.env.Client(t)
	c.Login(u.Email, pw)
	base := "/merchants/" + p.merchantID.String()
	if list := c.Get(base + "/transactions"); !strings.Contains(list.Body, "SUB-1.1") {
		t.Errorf("the ledger's list lacks the token sale (%d)", list.Status)
	}
	if csv := c.Get(base + "/transactions/export.csv"); !strings.Contains(csv.Body, "SUB-1.1") || !strings.Contains(csv.Body, "terminal") {
		t.Errorf("the export lacks the token sale:\n%s", csv.Body)
	}
	if batches := c.Get(base + "/batches"); batches.Status != 200 || !strings.Contains(batches.Body, "$25.00") {
		t.Errorf("the batch view lacks the token sale (%d)", batches.Status)
	}
	page := c.Get(base + "/transactions/" + sale.ID.String())
	for _, want := range []string{"Launched on terminal TABLE-D210", "The terminal cloud accepted it", "Damaged goods", "open it on the terminals page"} {
		if !strings.Contains(page.Body, want) {
			t.Errorf("the transaction's page lacks %q", want)
		}
	}
	if strings.Contains(page.Body, `/reverse"`) {
		t.Error("the transaction's page offers to reverse a terminal sale through the direct payment API")
	}
}

// A double click on the launch button, and a second tab launching on the
// same device, give one terminal transaction: the second tab is told the
// device is busy and sends nothing.
func TestBrowserDoubleClickAndTwoTabsLaunchOnce(t *testing.T) {
	t.Parallel()
	p := newPortal(t)
	u, pw := p.cashier(t)
	ctx := p.signIn(t, u, pw)
	// The second tab of the same browser, with the same session.
	tab2, cancel := chromedp.NewContext(ctx)
	defer cancel()

	p.openForm(t, ctx, "COUNTER-S300", "Sale")
	p.openForm(t, tab2, "COUNTER-S300", "Sale")
	do(t, ctx, "type the amount", chromedp.SendKeys(chromedp.ID("launch-amount"), "18.00"))
	do(t, tab2, "type the amount", chromedp.SendKeys(chromedp.ID("launch-amount"), "18.00"))
	do(t, ctx, "double click", chromedp.DoubleClick(chromedp.ID("launch-submit")), chromedp.WaitVisible(chromedp.ID("launch-status")))
	waitState(t, ctx, "Waiting for the cardholder")
	do(t, tab2, "launch from the second tab", chromedp.Click(chromedp.ID("launch-submit")), chromedp.WaitVisible(chromedp.ID("launch-problem")))
	if msg := browser.TextOf(t, tab2, chromedp.CSS("#launch-problem")); !strings.Contains(msg, "busy") || !strings.Contains(msg, "Nothing was sent") {
		t.Errorf("second tab: %q", msg)
	}
	if n := len(p.launches(t)); n != 1 {
		t.Errorf("%d launches", n)
	}
	if n := p.sandboxCount(t); n != 1 {
		t.Errorf("the terminal received %d transactions", n)
	}
	// The second tab links to the transaction holding the device, and
	// follows it too.
	do(t, tab2, "open the transaction holding the device", chromedp.Click(chromedp.CSS("#launch-problem a")),
		chromedp.WaitVisible(chromedp.ID("launch-status")))
	p.advance(4 * time.Second)
	waitState(t, ctx, "Approved")
	waitState(t, tab2, "Approved")
}

// A launch whose five minutes run out is unknown: the page asks to look at
// the terminal, the device stays locked, and the user records what the
// terminal showed, which frees it. An installer (the owning rep) sees the
// installer's choices only.
func TestBrowserUnknownOutcomeIsConfirmedByTheUser(t *testing.T) {
	t.Parallel()
	p := newPortal(t)
	u, pw := p.cashier(t)
	ctx := p.signIn(t, u, pw)
	p.sandboxAdmin(t, "PUT", "/settings", `{"cardholderDelay": "20m"}`, nil)
	p.openForm(t, ctx, "EMULATOR", "Sale")
	launch(t, ctx, map[string]string{"launch-amount": "9.00"})
	waitState(t, ctx, "Waiting for the cardholder")
	p.advance(5 * time.Minute)
	text := waitState(t, ctx, "Outcome unknown")
	if !strings.Contains(text, "Look at the terminal") || !strings.Contains(text, "stays locked") {
		t.Errorf("unknown page:\n%s", text)
	}
	do(t, ctx, "see the device locked", chromedp.Navigate(p.terminalsURL()), chromedp.WaitVisible(chromedp.ID("busy-EMULATOR")))
	if msg := browser.TextOf(t, ctx, chromedp.CSS("#busy-EMULATOR")); !strings.Contains(msg, "Locked") {
		t.Errorf("device: %q", msg)
	}
	do(t, ctx, "open it", chromedp.Click(chromedp.CSS("#busy-EMULATOR a")), chromedp.WaitVisible(chromedp.ID("confirm-form")))
	do(t, ctx, "say it was approved", chromedp.Click(chromedp.ID("outcome-approved")),
		chromedp.SendKeys(chromedp.ID("confirm-approval"), "OK1234"))
	// News while the person answers (here: the background rechecks end) brings the
	// rest of the section up to date and leaves the form as they filled it.
	if _, err := p.env.DB.Pool.Exec(context.Background(),
		`UPDATE terminal_launches SET recheck_until = NULL, follower = NULL, lease_until = NULL WHERE state = 'unknown'`); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`!document.querySelector("#unknown-note").textContent.includes("keeps asking")`,
		chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("the page never heard that the rechecks ended: %v", err)
	}
	kept, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("outcome-approved").checked && document.getElementById("confirm-approval").value === "OK1234"`))
	if err != nil || !kept {
		t.Fatalf("the form lost what was chosen and typed (%v)", err)
	}
	do(t, ctx, "record it", chromedp.Submit(chromedp.ID("confirm-approval")))
	text = waitState(t, ctx, "Approved")
	if !strings.Contains(text, "OK1234") || !strings.Contains(text, "Confirmed by") {
		t.Errorf("confirmed page:\n%s", text)
	}
	do(t, ctx, "see the device free", chromedp.Navigate(p.terminalsURL()), chromedp.WaitVisible(chromedp.ID("device-EMULATOR")))
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#busy-EMULATOR").length`)); err != nil || n != 0 {
		t.Errorf("the device is still locked (%d, %v)", n, err)
	}

	// The owning rep installs terminals: save card and test sales only.
	rep := p.signIn(t, p.rep, p.repPW)
	do(t, rep, "open the terminals page as the rep", chromedp.Navigate(p.terminalsURL()), chromedp.WaitVisible(chromedp.ID("installer-note")))
	links := browser.TextOf(t, rep, chromedp.CSS("#device-COUNTER-S300 nav"))
	if !strings.Contains(links, "Save card") || !strings.Contains(links, "Sale") || strings.Contains(links, "Return") {
		t.Errorf("installer's choices: %q", links)
	}
}
