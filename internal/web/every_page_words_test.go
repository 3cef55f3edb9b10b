package web_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The every-page test's checks of what pages say: run with every viewer in
// viewerZone, a zone whose offset is not a whole hour and differs from the
// machine's and the browser's, so that a time written in any other zone
// shows.
const (
	viewerZone = "Asia/Kathmandu"
	// browserZone is the browser's own zone: a time a script formats in the
	// browser's zone instead of the viewer's is caught too.
	browserZone = "America/Sao_Paulo"
)

// wordsScript lists what is wrong with the words and times of a document
// (the page, or a fragment parsed on its own): a <time> whose text is not
// its datetime in the viewer's zone (offsetMinutes east of UTC, written
// zoneLabel), a time shown in another zone (UTC, a zone's abbreviation, an
// ISO timestamp, the renderer's raw mark), a Go duration ("10m0s"), or a raw
// code ("document_added"). Code, pre, kbd and samp elements may show codes
// (the times in them, an e-mail's text, are checked all the same), and an
// element marked data-verbatim shows bytes sent to a machine as they were
// sent (a webhook's body), whose times are the wire's UTC.
const wordsScript = `(function(doc, offsetMinutes, zoneLabel, checkTimes){
	var out = [];
	function pad(n) { return (n < 10 ? "0" : "") + n; }
	function local(iso) {
		var d = new Date(iso);
		if (isNaN(d.getTime())) return null;
		var t = new Date(d.getTime() + offsetMinutes * 60000);
		return {date: t.getUTCFullYear() + "-" + pad(t.getUTCMonth() + 1) + "-" + pad(t.getUTCDate()),
			clock: pad(t.getUTCHours()) + ":" + pad(t.getUTCMinutes())};
	}
	if (checkTimes) {
		doc.querySelectorAll("time").forEach(function(el){
			var dt = el.getAttribute("datetime") || "", text = el.textContent.trim().replace(/\s+/g, " ");
			if (/^\d{4}-\d{2}-\d{2}$/.test(dt)) { if (text !== dt) out.push("a date that is not its datetime " + dt + ": " + JSON.stringify(text)); return; }
			var l = local(dt);
			if (!l) { out.push("a <time> without a datetime: " + JSON.stringify(text)); return; }
			var ok = [l.date + " " + l.clock + " " + zoneLabel, l.date, l.clock + " " + zoneLabel];
			if (ok.indexOf(text) < 0) out.push("a time not in the viewer's zone: " + JSON.stringify(text) + " for " + dt + " (want " + ok[0] + ")");
		});
	}
	var texts = [], prose = [];
	var walker = doc.createTreeWalker(doc.body || doc, NodeFilter.SHOW_TEXT);
	for (var n = walker.nextNode(); n; n = walker.nextNode()) {
		var parent = n.parentElement;
		if (parent && parent.closest("script, style, template, noscript")) continue;
		if (parent && parent.closest("[data-verbatim]")) continue;
		texts.push(n.nodeValue);
		if (!parent || !parent.closest("code, pre, kbd, samp")) prose.push(n.nodeValue);
	}
	(doc.body || doc).querySelectorAll("[title], [aria-label], [placeholder]").forEach(function(el){
		["title", "aria-label", "placeholder"].forEach(function(a){
			if (el.hasAttribute(a)) { texts.push(el.getAttribute(a)); prose.push(el.getAttribute(a)); }
		});
	});
	var text = texts.join(" \n ");
	function find(re, what) {
		var m, seen = {};
		re.lastIndex = 0;
		while ((m = re.exec(text)) && out.length < 40) {
			if (seen[m[0]]) continue;
			seen[m[0]] = true;
			var at = Math.max(0, m.index - 30);
			out.push(what + ": " + JSON.stringify(m[0]) + " in " + JSON.stringify(text.slice(at, m.index + m[0].length + 30).replace(/\s+/g, " ")));
		}
	}
	if (checkTimes) {
		find(/[\uE000\uE001]/g, "the renderer's raw time mark");
		find(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?(\.\d+)?(Z|[+-]\d{2}:?\d{2})?/g, "an ISO timestamp");
		find(/\b\d{1,2}:\d{2}(:\d{2})?\s*(UTC|GMT|Z)\b/g, "a time in UTC");
		var other = new RegExp("\\b\\d{1,2}:\\d{2}(:\\d{2})?\\s?(?!" + zoneLabel.replace("+", "\\+") + "\\b)([A-Z]{3,4}|[+-]\\d{4})\\b", "g");
		find(other, "a time in another zone than the viewer's");
	}
	text = prose.join(" \n ");
	find(/\b\d+h\d+m|\b\d+m\d+(\.\d+)?s\b/g, "a Go duration");
	find(/\b[a-z][a-z0-9]*(_[a-z0-9]+)+\b/g, "a raw code");
	return out;
})`

// wordProblems runs wordsScript on the page, then on each fragment path,
// fetched as htmx fetches it and parsed on its own.
func wordProblems(t *testing.T, ctx context.Context, fragments []string, checkTimes bool) []string {
	t.Helper()
	_, offset := time.Now().In(mustLoad(t, viewerZone)).Zone()
	label := time.Now().In(mustLoad(t, viewerZone)).Format("MST")
	// What the page loads by htmx as it opens (a panel) is checked too, once it is in.
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.readyState === "complete" &&
		!document.querySelector(".htmx-request, .htmx-settling, .htmx-swapping")`, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("waiting for htmx to settle: %v", err)
	}
	call := fmt.Sprintf("%s(document, %d, %q, %t)", wordsScript, offset/60, label, checkTimes)
	problems, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](call))
	if err != nil {
		t.Fatalf("words check: %v", err)
	}
	for _, path := range fragments {
		script := fmt.Sprintf(`fetch(%q, {headers: {"HX-Request": "true"}, credentials: "same-origin"})
			.then(function(r){ return r.text().then(function(body){ return [r.status, body]; }); })
			.then(function(res){
				if (res[0] >= 400 || !res[1].trim()) return ["the fragment answered " + res[0] + " with " + res[1].length + " bytes"];
				var doc = new DOMParser().parseFromString(res[1], "text/html");
				return %s(doc, %d, %q, %t);
			})`, path, wordsScript, offset/60, label, checkTimes)
		got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](script, chromedp.EvalAsValue, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("words check of %s: %v", path, err)
		}
		for _, p := range got {
			problems = append(problems, "fragment "+path+": "+p)
		}
	}
	return problems
}

// mustOffset is a zone's offset from UTC now, in seconds.
func mustOffset(t *testing.T, name string) int {
	t.Helper()
	_, offset := time.Now().In(mustLoad(t, name)).Zone()
	return offset
}

func mustLoad(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// edgeScript lists, at a width, a navigation list of the page whose first link starts
// left of the content's edge, and (at desktop width) a button beside a field (in a group,
// or a copy button) whose label wraps onto a second line ("Copy / link").
const edgeScript = `(function(w){
	var out = [], main = document.querySelector("main");
	if (!main) return out;
	var edge = main.getBoundingClientRect().left + parseFloat(getComputedStyle(main).paddingLeft || 0);
	function shown(e) { return e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden"; }
	function textRects(e) { var r = document.createRange(); r.selectNodeContents(e); return r.getClientRects(); }
	main.querySelectorAll("nav ul").forEach(function(ul){
		var first = ul.querySelector("a, [aria-current]");
		if (!first || !shown(first)) return;
		var rects = textRects(first);
		if (rects.length && rects[0].left < edge - 1) {
			var nav = ul.closest("nav");
			out.push("the navigation " + JSON.stringify((nav && nav.getAttribute("aria-label")) || "") + " starts at " +
				Math.round(rects[0].left) + " px, left of the content's edge at " + Math.round(edge) + " px");
		}
	});
	if (w >= 1280) document.querySelectorAll("[role=group] > button, button[data-copy-target]").forEach(function(b){
		if (!shown(b) || !b.textContent.trim()) return;
		var lines = {}, walker = document.createTreeWalker(b, NodeFilter.SHOW_TEXT);
		for (var n = walker.nextNode(); n; n = walker.nextNode()) {
			var box = n.parentElement.getBoundingClientRect();
			if (box.width <= 1 || box.height <= 1) continue; // visually hidden words, for screen readers
			Array.prototype.forEach.call(textRects(n), function(r){ if (r.width > 1) lines[Math.round(r.top)] = true; });
		}
		if (Object.keys(lines).length > 1) out.push("the button " + JSON.stringify(b.textContent.trim().replace(/\s+/g, " ")) + " wraps onto " + Object.keys(lines).length + " lines (" + Math.round(b.getBoundingClientRect().width) + " px wide)");
	});
	return out;
})`

// edgeProblems runs edgeScript at the current width.
func edgeProblems(t *testing.T, ctx context.Context, w int64) []string {
	t.Helper()
	problems, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](fmt.Sprintf("(%s)(%d)", edgeScript, w)))
	if err != nil {
		t.Fatalf("edge check: %v", err)
	}
	return problems
}
