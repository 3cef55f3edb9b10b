package terminals_test

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/payportal/portal/internal/testutil/a11y"
)

// The terminals pages pass axe-core's WCAG 2.1 AA checks of serious and
// critical impact, and never scroll sideways on a phone (390 px) or a
// desktop (1280 px): the devices, a refused launch form, the tip form, a
// launch waiting, approved and unknown.
func TestBrowserTerminalPagesAreAccessible(t *testing.T) {
	t.Parallel()
	p := newPortal(t)
	u, pw := p.cashier(t)
	ctx := p.signIn(t, u, pw)
	check := func(name string) {
		t.Helper()
		for _, v := range a11y.Audit(t, ctx) {
			t.Errorf("%s: %s", name, v)
		}
		for _, width := range []int64{390, 1280} {
			do(t, ctx, "resize", chromedp.EmulateViewport(width, 900))
			wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > document.documentElement.clientWidth`))
			if err != nil {
				t.Fatal(err)
			}
			if wide {
				culprit, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(function(){ var w = document.documentElement.clientWidth, out = [];
					document.querySelectorAll("body *").forEach(function(e){ var r = e.getBoundingClientRect(); if (r.right > w + 1) out.push(e.tagName + "#" + e.id + "." + e.className + " " + Math.round(r.right)); });
					var walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT), n; while ((n = walk.nextNode())) { var rg = document.createRange(); rg.selectNodeContents(n); var rr = rg.getBoundingClientRect(); if (rr.right > w + 1) out.push("text:" + n.textContent.trim().slice(0, 60) + " " + Math.round(rr.right)); }
					return out.slice(0, 5).join(", "); })()`))
				t.Errorf("%s scrolls sideways at %d px: %s", name, width, culprit)
			}
		}
	}
	do(t, ctx, "open the devices", chromedp.Navigate(p.terminalsURL()), chromedp.WaitVisible(chromedp.ID("device-EMULATOR")))
	check("devices")
	p.openForm(t, ctx, "COUNTER-S300", "Return")
	do(t, ctx, "send an empty return", chromedp.Click(chromedp.ID("launch-submit")), chromedp.WaitVisible(chromedp.ID("launch-amount-error")))
	check("refused return form")
	p.openForm(t, ctx, "COUNTER-S300", "Sale")
	launch(t, ctx, map[string]string{"launch-amount": "20.00"})
	waitState(t, ctx, "Waiting for the cardholder")
	check("launch waiting")
	p.advance(4 * time.Second)
	waitState(t, ctx, "Approved")
	check("launch approved")
	do(t, ctx, "open the tip form", chromedp.Click(chromedp.ID("add-tip")), chromedp.WaitVisible(chromedp.ID("launch-amount")),
		chromedp.SendKeys(chromedp.ID("launch-amount"), "30.00"))
	check("tip form with its warning")
	p.sandboxAdmin(t, "PUT", "/settings", `{"cardholderDelay": "20m"}`, nil)
	p.openForm(t, ctx, "EMULATOR", "Sale")
	launch(t, ctx, map[string]string{"launch-amount": "5.00"})
	waitState(t, ctx, "Waiting for the cardholder")
	p.advance(5 * time.Minute)
	waitState(t, ctx, "Outcome unknown")
	check("launch unknown")
}
