package browser

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"
)

// sidewaysJS lists what does not fit the viewport's width: the page scrolling sideways,
// a visible control (link, button, input, select, textarea, summary) cut off at either
// edge, and a word of the elements matched by words split across two lines (a mid-word
// break such as "Void ed chec k").
const sidewaysJS = `((words) => {
	const out = [], w = document.documentElement.clientWidth;
	if (document.documentElement.scrollWidth > w + 1) out.push("the page scrolls sideways: " + document.documentElement.scrollWidth + " > " + w);
	const name = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + " " + JSON.stringify((el.textContent || el.value || "").trim().slice(0, 40));
	for (const el of document.querySelectorAll("a[href], button, input:not([type=hidden]), select, textarea, summary")) {
		const r = el.getBoundingClientRect();
		if (!r.width || !r.height || getComputedStyle(el).visibility === "hidden") continue;
		if (el.closest(".visually-hidden, .default-submit, .skip-link")) continue;
		if (r.left < -1 || r.right > w + 1) out.push("cut off: " + name(el) + " spans " + Math.round(r.left) + "–" + Math.round(r.right));
	}
	if (words) for (const el of document.querySelectorAll(words)) {
		if (!el.getClientRects().length) continue;
		const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
		for (let n = walk.nextNode(); n; n = walk.nextNode()) {
			const re = /\S+/g;
			for (let m = re.exec(n.data); m; m = re.exec(n.data)) {
				const range = document.createRange();
				range.setStart(n, m.index);
				range.setEnd(n, m.index + m[0].length);
				const tops = new Set(Array.from(range.getClientRects()).filter(r => r.width > 0).map(r => Math.round(r.top)));
				if (tops.size > 1) out.push("word broken across lines: " + JSON.stringify(m[0]) + " in " + name(el));
			}
		}
	}
	return out;
})`

// SidewaysProblems returns what of the open page does not fit its width (see sidewaysJS);
// words is a CSS selector of elements whose words must not break mid-word, or "".
func SidewaysProblems(t testing.TB, ctx context.Context, words string) []string {
	t.Helper()
	arg := "null"
	if words != "" {
		arg = "'" + words + "'"
	}
	problems, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](sidewaysJS+"("+arg+")"))
	if err != nil {
		t.Fatalf("browser: measure the page: %v", err)
	}
	return problems
}
