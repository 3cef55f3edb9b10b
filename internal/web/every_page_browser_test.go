package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/payportal/portal/internal/testutil/a11y"
	"github.com/payportal/portal/internal/testutil/apptest"
	"github.com/payportal/portal/internal/testutil/browser"
)

// Who a page is visited as: each group signs in once.
const (
	asNobody     = "nobody"      // signed out
	asFirstAdmin = "first admin" // password accepted, two-step sign-in not yet set up
	asAdmin      = "admin"
	asRep        = "rep"
	asMember     = "merchant user"
	asSandbox    = "sandbox" // the sandbox's own pages (merchant, admin)
)

// page is one main page of the product. A later page joins the table with
// one line.
type page struct {
	name string
	as   string
	path func(s *apptest.Showcase) string
	// ready is a CSS selector visible once the page is drawn ("main h1" when empty).
	ready string
	// knownBy, when set, names the branch that owns the page's known layout
	// failures: they are logged, not failed, until that branch is merged and
	// the lead deletes the mark.
	knownBy string
	// check, when set, is a script of further checks run at each width:
	// a function expression of the width returning a list of problems.
	check string
	// fragments are the htmx fragments the page loads or refreshes, checked
	// for their words and times as fetched on their own.
	fragments func(s *apptest.Showcase) []string
}

// dashboardCheck: the filter bar is compact (at most two rows of fields at
// 1280 px, folded on a phone), the first rows show on the first screen, and
// dates never wrap mid-value.
const dashboardCheck = `(function(w){
	var out = [], bar = document.querySelector(".filter-bar"), row = document.querySelector("#application-list tbody tr");
	if (!bar || !row) return ["no filter bar or no row"];
	if (w >= 1280) {
		var fields = bar.querySelectorAll(".filter-fields > div"), tops = {};
		fields.forEach(function(f){ tops[Math.round(f.getBoundingClientRect().bottom / 10)] = true; });
		if (Object.keys(tops).length > 2) out.push("the filter fields take " + Object.keys(tops).length + " rows");
		if (!bar.open) out.push("the filter bar is folded at desktop width");
		document.querySelectorAll("#application-list time").forEach(function(t){
			if (t.getClientRects().length > 1 || t.getBoundingClientRect().height > 2 * parseFloat(getComputedStyle(t).lineHeight || 20)) out.push("a date wraps: " + t.textContent);
		});
	} else if (bar.open) out.push("the filter bar is open on a phone");
	var top = row.getBoundingClientRect().top + window.scrollY;
	if (top > window.innerHeight - 40) out.push("the first row starts at " + Math.round(top) + " px, below the first screen");
	return out;
})`

// everyPage is every main page, in the order the test visits them (one
// sign-in per group).
var everyPage = []page{
	{name: "sign-in", as: asNobody, path: fixed("/login"), ready: "#email"},
	{name: "invitation", as: asNobody, path: func(s *apptest.Showcase) string { return s.InvitationPath }, ready: "#new_password"},
	{name: "two-step set-up", as: asFirstAdmin, path: fixed("/login/mfa/setup"), ready: "#code"},

	{name: "dashboard", as: asAdmin, path: fixed("/"), check: dashboardCheck, fragments: fixedList("/?sort=updated")},
	{name: "application: business", as: asAdmin, path: app(func(s *apptest.Showcase) string { return s.Draft.String() })},
	{name: "application: owners", as: asAdmin, path: app(func(s *apptest.Showcase) string { return s.Draft.String() + "?step=owners" })},
	{name: "application: bank", as: asAdmin, path: app(func(s *apptest.Showcase) string { return s.Draft.String() + "?step=bank" })},
	{name: "application: contact", as: asAdmin, path: app(func(s *apptest.Showcase) string { return s.Draft.String() + "?step=contact" })},
	{name: "application: pricing", as: asAdmin, path: app(func(s *apptest.Showcase) string { return s.Draft.String() + "?step=pricing" })},
	{name: "application: documents", as: asAdmin, path: app(func(s *apptest.Showcase) string { return s.Draft.String() + "?step=documents" })},
	{name: "application: review", as: asAdmin, path: app(func(s *apptest.Showcase) string { return s.Draft.String() + "?step=review" }),
		fragments: appFragments(func(s *apptest.Showcase) string { return s.Draft.String() }, "/history", "/checklist", "/review")},
	{name: "application: sent, locked", as: asAdmin, path: app(func(s *apptest.Showcase) string { return s.Linked.String() }),
		fragments: appFragments(func(s *apptest.Showcase) string { return s.Linked.String() }, "/history", "/progress", "/reminders")},
	{name: "application: boarded", as: asAdmin, path: app(func(s *apptest.Showcase) string { return s.Boarded.String() })},
	{name: "pricing list", as: asAdmin, path: fixed("/admin/pricing")},
	{name: "pricing form", as: asAdmin, path: func(s *apptest.Showcase) string { return "/admin/pricing/" + s.PricingModel.String() }, ready: "#pm-name"},
	{name: "users", as: asAdmin, path: fixed("/admin/users"), ready: "#new-email"},
	{name: "user", as: asAdmin, path: func(s *apptest.Showcase) string { return "/admin/users/" + s.Invited.String() }, ready: "#account-history"},
	{name: "outbox", as: asAdmin, path: fixed("/admin/outbox")},
	{name: "outbox message", as: asAdmin, path: func(s *apptest.Showcase) string { return "/admin/outbox/" + s.Outbox.String() }},
	{name: "account: password", as: asAdmin, path: fixed("/account/password"), ready: "#current_password"},
	{name: "account: security", as: asAdmin, path: fixed("/account/security")},
	{name: "account: time zone", as: asAdmin, path: fixed("/account/time-zone")},
	{name: "insights", as: asAdmin, path: fixed("/insights")},
	{name: "import", as: asAdmin, path: fixed("/imports")},
	{name: "reminder settings", as: asAdmin, path: fixed("/admin/reminders")},
	{name: "API keys", as: asAdmin, path: fixed("/admin/api-keys"), ready: "#key-name"},
	{name: "webhooks", as: asAdmin, path: fixed("/admin/webhooks")},
	{name: "webhook endpoint: new", as: asAdmin, path: fixed("/admin/webhooks/new"), ready: "#url"},
	{name: "webhook endpoint", as: asAdmin, path: func(s *apptest.Showcase) string { return "/admin/webhooks/" + s.WebhookEndpoint.String() }},
	{name: "webhook delivery", as: asAdmin, path: func(s *apptest.Showcase) string {
		return "/admin/webhooks/" + s.WebhookEndpoint.String() + "/deliveries/" + s.WebhookDelivery.String()
	}},
	{name: "merchants", as: asAdmin, path: fixed("/merchants")},
	{name: "merchant", as: asAdmin, path: merchant("")},

	{name: "dashboard (rep)", as: asRep, path: fixed("/"), check: dashboardCheck},
	{name: "merchant (rep)", as: asRep, path: merchant("")},

	{name: "merchants (merchant user)", as: asMember, path: fixed("/merchants")},
	{name: "merchant (merchant user)", as: asMember, path: merchant("")},
	{name: "virtual terminal", as: asMember, path: merchant("/payments/new"), check: virtualTerminalCheck},
	{name: "ledger", as: asMember, path: merchant("/transactions"), check: ledgerCheck, fragments: func(s *apptest.Showcase) []string {
		return []string{"/merchants/" + s.Merchant.String() + "/transactions"}
	}},
	{name: "transaction", as: asMember, path: func(s *apptest.Showcase) string {
		return "/merchants/" + s.Merchant.String() + "/transactions/" + s.Transaction.String()
	}, fragments: func(s *apptest.Showcase) []string {
		return []string{"/merchants/" + s.Merchant.String() + "/transactions/" + s.Transaction.String() + "/status"}
	}},
	{name: "batches", as: asMember, path: merchant("/batches")},
	{name: "batch", as: asMember, path: func(s *apptest.Showcase) string {
		return "/merchants/" + s.Merchant.String() + "/transactions?batch=" + s.Batch + "&status=approved"
	}, check: ledgerCheck},
	{name: "customers", as: asMember, path: merchant("/customers")},
	{name: "customer", as: asMember, path: func(s *apptest.Showcase) string {
		return "/merchants/" + s.Merchant.String() + "/customers/" + s.Customer.String()
	}},
	{name: "terminals", as: asMember, path: merchant("/terminals")},
	{name: "terminal launch form", as: asMember, path: func(s *apptest.Showcase) string {
		return "/merchants/" + s.Merchant.String() + "/terminals/launch?kind=sale&device=EMULATOR&location=" + s.Location
	}, ready: "#launch-amount"},

	{name: "sandbox: merchant's application", as: asSandbox, path: func(s *apptest.Showcase) string { return s.SandboxLink }},
	{name: "sandbox: merchant's edit page", as: asSandbox, path: func(s *apptest.Showcase) string { return s.SandboxLink + "/edit/business" }},
	{name: "sandbox: admin overview", as: asSandbox, path: func(s *apptest.Showcase) string { return strings.TrimSuffix(s.SandboxAdmin, "/accounts") }},
	{name: "sandbox: admin applications", as: asSandbox, path: func(s *apptest.Showcase) string { return s.SandboxAdmin }},
	{name: "sandbox: admin payments", as: asSandbox, path: func(s *apptest.Showcase) string { return strings.TrimSuffix(s.SandboxAdmin, "accounts") + "payments" }},
	{name: "sandbox: admin terminals", as: asSandbox, path: func(s *apptest.Showcase) string { return strings.TrimSuffix(s.SandboxAdmin, "accounts") + "terminals" }},
}

// appFragments are fragments of an application's page.
func appFragments(id func(*apptest.Showcase) string, rest ...string) func(*apptest.Showcase) []string {
	return func(s *apptest.Showcase) []string {
		out := make([]string, len(rest))
		for i, r := range rest {
			out[i] = "/applications/" + id(s) + r
		}
		return out
	}
}

func fixedList(p ...string) func(*apptest.Showcase) []string {
	return func(*apptest.Showcase) []string { return p }
}

func fixed(p string) func(*apptest.Showcase) string {
	return func(*apptest.Showcase) string { return p }
}

func app(id func(*apptest.Showcase) string) func(*apptest.Showcase) string {
	return func(s *apptest.Showcase) string { return "/applications/" + id(s) }
}

func merchant(rest string) func(*apptest.Showcase) string {
	return func(s *apptest.Showcase) string { return "/merchants/" + s.Merchant.String() + rest }
}

// viewports are the widths every page is checked at: a desktop and a phone.
var viewports = []struct{ w, h int64 }{{1280, 800}, {390, 844}}

// Every main page, as each role sees it, at 1280×800 and 390×844: it does
// not scroll sideways, no visible control is cut off (outside the viewport,
// or clipped by an ancestor that hides its overflow), and axe-core finds
// nothing serious. Every viewer is in viewerZone, the browser in another:
// every time on the page and its fragments is in the viewer's zone, and no
// text shows a Go duration or a raw code (every_page_words_test.go).
func TestBrowserEveryPageFitsAndPassesAudit(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.WithSandbox(nil))
	s := apptest.Seed(t, env)
	if err := env.DB.Gorm.Exec(`UPDATE users SET time_zone = ?`, viewerZone).Error; err != nil {
		t.Fatal(err)
	}
	if _, machine := time.Now().Zone(); machine == mustOffset(t, viewerZone) {
		t.Fatalf("the machine's zone has %s's offset: the check of times would prove nothing", viewerZone)
	}
	ctx, cancel := context.WithTimeout(browser.New(t), 4*time.Minute)
	defer cancel()
	if _, err := chromedp.Call(ctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: browserZone}); err != nil {
		t.Fatal(err)
	}

	signedInAs := ""
	for _, p := range everyPage {
		if p.as != signedInAs {
			signInAs(t, ctx, s, p.as)
			signedInAs = p.as
		}
		address := p.path(s)
		if !strings.HasPrefix(address, "http") {
			address = env.URL + address
		}
		ready := p.ready
		if ready == "" {
			ready = "main h1, h1"
		}
		pageCtx, cancelPage := context.WithTimeout(ctx, 20*time.Second)
		err := chromedp.Do(pageCtx, chromedp.EmulateViewport(viewports[0].w, viewports[0].h), chromedp.Navigate(address),
			chromedp.WaitVisible(chromedp.CSS(ready)))
		cancelPage()
		if err != nil {
			t.Errorf("%s (%s): not drawn: %v", p.name, address, err)
			continue
		}
		report := t.Errorf
		if p.knownBy != "" {
			report = func(format string, args ...any) {
				t.Logf("known, owned by "+p.knownBy+": "+format, args...)
			}
		}
		for _, v := range a11y.Audit(t, ctx) {
			report("%s: %s", p.name, v)
		}
		var fragments []string
		if p.fragments != nil {
			fragments = p.fragments(s)
		}
		// The sandbox stands in for the processor: its times are its own.
		for _, problem := range wordProblems(t, ctx, fragments, p.as != asSandbox) {
			report("%s: %s", p.name, problem)
		}
		for _, vp := range viewports {
			for _, problem := range layoutProblems(t, ctx, vp.w, vp.h) {
				report("%s at %d px: %s", p.name, vp.w, problem)
			}
			for _, problem := range brokenWords(t, ctx) {
				report("%s at %d px: %s", p.name, vp.w, problem)
			}
			for _, problem := range edgeProblems(t, ctx, vp.w) {
				report("%s at %d px: %s", p.name, vp.w, problem)
			}
			if p.check != "" {
				// The page is loaded again at this width, as a phone would load it.
				if err := chromedp.Do(ctx, chromedp.Navigate(address), chromedp.WaitVisible(chromedp.CSS(ready))); err != nil {
					t.Fatalf("%s: reload: %v", p.name, err)
				}
				problems, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](fmt.Sprintf("(%s)(%d)", p.check, vp.w)))
				if err != nil {
					t.Fatalf("%s: check: %v", p.name, err)
				}
				for _, problem := range problems {
					report("%s at %d px: %s", p.name, vp.w, problem)
				}
			}
		}
	}
}

// signInAs clears the browser's cookies and signs in as the group's person.
func signInAs(t *testing.T, ctx context.Context, s *apptest.Showcase, as string) {
	t.Helper()
	if _, err := chromedp.Call(ctx, network.ClearBrowserCookies, cdp.Empty{}); err != nil {
		t.Fatalf("clear cookies: %v", err)
	}
	var who apptest.Person
	switch as {
	case asNobody, asSandbox:
		return
	case asFirstAdmin:
		if err := chromedp.Do(ctx, chromedp.Navigate(s.Env.URL+"/login"), chromedp.WaitVisible(chromedp.ID("email")),
			chromedp.SendKeys(chromedp.ID("email"), s.FirstAdmin.Email), chromedp.SendKeys(chromedp.ID("password"), s.FirstAdmin.Password),
			chromedp.Submit(chromedp.ID("password")), chromedp.WaitVisible(chromedp.ID("code"))); err != nil {
			t.Fatalf("sign in as the first admin: %v", err)
		}
		return
	case asAdmin:
		who = s.Admin
	case asRep:
		who = s.Rep
	case asMember:
		who = s.Member
	}
	var code []func() string
	if who.MFA {
		code = append(code, s.Env.TOTP(t, who.Email))
	}
	browser.SignIn(t, ctx, s.Env.URL, who.Email, who.Password, code...)
}

// layoutProblems resizes the viewport and lists what does not fit: the page
// scrolling sideways (with the elements that stick out), and every visible
// control outside the viewport or clipped by an ancestor's hidden overflow.
func layoutProblems(t *testing.T, ctx context.Context, w, h int64) []string {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(w, h)); err != nil {
		t.Fatal(err)
	}
	problems, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](layoutScript))
	if err != nil {
		t.Fatalf("layout check: %v", err)
	}
	return problems
}

// layoutScript is the check layoutProblems runs in the page.
const layoutScript = `(function(){
	var doc = document.documentElement, W = doc.clientWidth, out = [];
	function name(e) {
		var s = e.tagName.toLowerCase();
		if (e.id) s += "#" + e.id;
		if (typeof e.className === "string" && e.className.trim()) s += "." + e.className.trim().split(/\s+/).join(".");
		var label = (e.getAttribute("aria-label") || e.textContent || e.value || e.name || "").trim().replace(/\s+/g, " ").slice(0, 40);
		return label ? s + " \u201c" + label + "\u201d" : s;
	}
	function shown(e) {
		if (!e.getClientRects().length) return false;
		var r = e.getBoundingClientRect();
		if (r.width <= 1 || r.height <= 1) return false; // visually hidden
		for (var p = e; p; p = p.parentElement) {
			var cs = getComputedStyle(p);
			if (cs.visibility === "hidden" || cs.display === "none" || cs.opacity === "0") return false;
		}
		return true;
	}
	if (doc.scrollWidth > W) {
		var wide = [];
		document.querySelectorAll("body *").forEach(function(e){
			var r = e.getBoundingClientRect();
			if (r.right > W + 1 && wide.length < 4 && shown(e)) {
				var inner = false;
				for (var i = 0; i < e.children.length; i++) { if (e.children[i].getBoundingClientRect().right > W + 1) inner = true; }
				if (!inner) wide.push(name(e) + " ends at " + Math.round(r.right));
			}
		});
		out.push("the page scrolls sideways (" + doc.scrollWidth + " > " + W + "): " + wide.join("; "));
	}
	document.querySelectorAll("a, button, input, select, textarea, summary").forEach(function(e){
		// Skip links wait off-screen for focus; aria-hidden controls are not for people.
		if (e.type === "hidden" || e.classList.contains("skip-link") || e.closest("[aria-hidden=true]") || !shown(e)) return;
		var r = e.getBoundingClientRect();
		if (r.left < -1 || r.right > W + 1) {
			out.push(name(e) + " is cut off by the viewport (" + Math.round(r.left) + "–" + Math.round(r.right) + " of " + W + ")");
			return;
		}
		for (var p = e.parentElement; p && p !== document.body; p = p.parentElement) {
			var ox = getComputedStyle(p).overflowX;
			if (ox !== "hidden" && ox !== "clip") continue;
			var pr = p.getBoundingClientRect();
			if (r.left < pr.left - 1 || r.right > pr.right + 1) {
				out.push(name(e) + " is cut off by " + name(p).slice(0, 60));
				return;
			}
		}
	});
	return out;
})()`
