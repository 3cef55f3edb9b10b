package web_test

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"
)

// brokenWords lists the words of badges (.state, .badge) and table cells
// that the page as drawn now breaks across two lines ("Approve/d"): a word
// (a run of letters or digits) whose boxes, read with Range.getClientRects,
// sit on more than one line. Breaking between words, or after a hyphen, is
// fine; so is breaking an e-mail address or a link, which has no spaces.
func brokenWords(t *testing.T, ctx context.Context) []string {
	t.Helper()
	problems, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](brokenWordsScript))
	if err != nil {
		t.Fatalf("broken words check: %v", err)
	}
	return problems
}

const brokenWordsScript = `(function(){
	var out = [], visited = new Set();
	function where(e) {
		var s = e.tagName.toLowerCase();
		if (typeof e.className === "string" && e.className.trim()) s += "." + e.className.trim().split(/\s+/).join(".");
		var label = e.getAttribute("data-label");
		return label ? s + " (" + label + ")" : s;
	}
	// lines counts the lines the characters [from, to) of text node n are drawn on.
	function lines(n, from, to) {
		var r = document.createRange(), tops = new Set();
		r.setStart(n, from);
		r.setEnd(n, to);
		Array.from(r.getClientRects()).forEach(function(b){ if (b.width > 0 && b.height > 0) tops.add(Math.round(b.top)); });
		return tops.size;
	}
	function check(n, root) {
		var chunk = /\S+/g, c;
		while ((c = chunk.exec(n.data))) {
			if (/@|:\/\//.test(c[0])) continue; // an address has no spaces: it breaks where it must
			var word = /[\p{L}\p{N}]{2,}/gu, m;
			while ((m = word.exec(c[0]))) {
				var at = c.index + m.index, k = lines(n, at, at + m[0].length);
				if (k > 1) out.push("the word \u201c" + m[0] + "\u201d breaks across " + k + " lines in " + where(root) + ": \u201c" +
					root.textContent.trim().replace(/\s+/g, " ").slice(0, 60) + "\u201d");
			}
		}
	}
	document.querySelectorAll(".state, .badge, td, th").forEach(function(root){
		if (!root.getClientRects().length) return;
		var walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
		for (var n = walker.nextNode(); n; n = walker.nextNode()) {
			if (!visited.has(n)) { visited.add(n); check(n, root); }
		}
	});
	return out;
})()`
