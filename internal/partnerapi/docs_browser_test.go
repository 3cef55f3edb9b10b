package partnerapi_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/payportal/portal/internal/testutil/apptest"
	"github.com/payportal/portal/internal/testutil/browser"
)

// watchCSP records, in every document the tab opens, what the content security policy
// refused; the script is the browser's, not the page's, so the policy does not apply
// to it.
const watchCSP = `window.__refused = [];
document.addEventListener("securitypolicyviolation", e => window.__refused.push(e.violatedDirective + " " + e.blockedURI));
window.addEventListener("error", e => window.__refused.push("error: " + e.message));`

// TestBrowserReferencePagesRenderUnderThePolicy opens /api/docs in Chromium: Redoc,
// served by the portal, draws the document's operations, and the portal's content
// security policy refuses nothing (no CDN, no inline script, fonts of its own).
func TestBrowserReferencePagesRenderUnderThePolicy(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.WithoutWorkers())
	res, err := http.Get(env.URL + "/api/docs")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self';") || !strings.Contains(csp, "style-src 'self' 'nonce-") || strings.Contains(csp, "unsafe") {
		t.Fatalf("policy %q", csp)
	}
	ctx, cancel := context.WithTimeout(browser.New(t), 2*time.Minute)
	defer cancel()
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: watchCSP}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(env.URL+"/api/docs#/applications")); err != nil {
		t.Fatal(err)
	}
	drawn := `["Portal partner API", "RFC 9457", "Documents", "Hand-off", "Merchants", "Transactions",
		"Create a draft application", "Update a draft application", "/applications/{id}/submit"]
		.every(words => document.body.innerText.includes(words))`
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](drawn)); err != nil {
		text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText.slice(0, 500)`))
		t.Fatalf("the reference pages were not drawn: %v\n%q", err, text)
	}
	refused, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__refused`))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range refused {
		if !slices.Contains(harmlessRefusals, r) {
			t.Errorf("the content security policy refused %q", r)
		}
	}
}

// harmlessRefusals are what the policy refuses Redoc without loss: a feature test for
// the global object (Function("return this"), which falls back), and Redocly's logo
// from its CDN under "API docs by", which the page is kept from fetching.
var harmlessRefusals = []string{"script-src eval", "img-src https://cdn.redoc.ly/redoc/logo-mini-full.svg", "img-src https://cdn.redoc.ly/redoc/logo-mini.svg"}
