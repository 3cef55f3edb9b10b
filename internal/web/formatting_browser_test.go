package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/payportal/portal/internal/testutil/apptest"
	testbrowser "github.com/payportal/portal/internal/testutil/browser"
)

// formatCase is how one kind of field ([data-format]) is tried: typed key by
// key, edited mid-number (the caret put somewhere, keys typed there), then
// pasted over as a whole; the pasted value is what the form posts.
type formatCase struct {
	typed, shown string
	edits        []formatEdit
	paste        func(s *apptest.Showcase) string
	pasted       string // "" when the paste reads as pasted
}

// formatEdit puts the caret at at, types keys ("\b" is Backspace) and
// expects the value shown and the caret after them.
type formatEdit struct {
	at          int
	keys, shown string
	caret       int
}

// formatCases are the cases of each kind of formatting.
var formatCases = map[string]formatCase{
	"card": {typed: "4111111111111111", shown: "4111 1111 1111 1111", edits: []formatEdit{
		{at: 2, keys: "9", shown: "4191 1111 1111 1111 1", caret: 3},
		{at: 3, keys: "\b", shown: "4111 1111 1111 1111", caret: 2},
		{at: 5, keys: "\b", shown: "4111 1111 1111 111", caret: 3},
	}, paste: fixedPaste("3782-822463-10005"), pasted: "3782 822463 10005"},
	"expiry": {typed: "0829", shown: "08/29", edits: []formatEdit{
		{at: 1, keys: "1", shown: "01/829", caret: 2},
		{at: 2, keys: "\b", shown: "08/29", caret: 1},
		{at: 3, keys: "\b", shown: "02/9", caret: 1},
	}, paste: func(s *apptest.Showcase) string { return fmt.Sprintf("12/%02d", s.Env.Clock.Now().Year()%100+3) }},
	"money": {typed: "1234.5", shown: "1,234.5", edits: []formatEdit{
		{at: 1, keys: "0", shown: "10,234.5", caret: 2},
		{at: 2, keys: "\b", shown: "1,234.5", caret: 1},
		{at: 2, keys: "\b", shown: "234.5", caret: 0},
	}, paste: fixedPaste("$1,234.50"), pasted: "1,234.50"},
	"zip": {typed: "972041234", shown: "97204-1234", edits: []formatEdit{
		{at: 6, keys: "\b", shown: "97201-234", caret: 4},
		{at: 2, keys: "5", shown: "97520-1234", caret: 3},
	}, paste: fixedPaste("97214")},
	"tin": {typed: "123-456789", shown: "123-45-6789", edits: []formatEdit{
		{at: 11, keys: "\b\b\b\b\b\b\b\b\b\b\b", shown: "", caret: 0},
		{at: 0, keys: "461234567", shown: "46-1234567", caret: 10},
		{at: 3, keys: "\b", shown: "41-234567", caret: 1},
	}, paste: fixedPaste("46 1234567"), pasted: "46-1234567"},
	"ssn": {typed: "234567890", shown: "234-56-7890", edits: []formatEdit{
		{at: 4, keys: "\b", shown: "235-67-890", caret: 2},
		{at: 2, keys: "4", shown: "234-56-7890", caret: 3},
	}, paste: fixedPaste("234 56 7890"), pasted: "234-56-7890"},
	"phone": {typed: "5035550142", shown: "(503) 555-0142", edits: []formatEdit{
		{at: 6, keys: "\b", shown: "(505) 550-142", caret: 3},
		{at: 3, keys: "3", shown: "(503) 555-0142", caret: 4},
	}, paste: fixedPaste("1-503-555-0199"), pasted: "1 (503) 555-0199"},
}

func fixedPaste(v string) func(*apptest.Showcase) string {
	return func(*apptest.Showcase) string { return v }
}

// Every formatted field of the virtual terminal and of an application's
// business, owners and contact steps formats as it is typed, keeps the caret
// after the digit it followed when edited mid-number (Backspace after a
// separator removes the digit before it), formats a real paste (from the
// clipboard) as a whole, and posts what it shows, which the server takes:
// the card payment is approved and the application's sections save with no
// problem. The card number is never written into an attribute, and the card
// form is kept out of htmx's history snapshot.
func TestBrowserFieldsFormatAsTyped(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.WithSandbox(nil))
	s := apptest.Seed(t, env)
	ctx, cancel := context.WithTimeout(testbrowser.New(t), 8*time.Minute)
	defer cancel()
	for _, name := range []string{"clipboard-read", "clipboard-write"} {
		if _, err := chromedp.CallBrowser(ctx, browser.SetPermission, browser.SetPermissionParams{Origin: env.URL,
			Permission: &browser.PermissionDescriptor{Name: name}, Setting: browser.PermissionSettingGranted}); err != nil {
			t.Fatal(err)
		}
	}

	signInAs(t, ctx, s, asRep)
	for _, step := range []string{"business", "owners", "contact"} {
		address := env.URL + "/applications/" + s.Draft.String() + "?step=" + step
		do(t, ctx, "open "+step, chromedp.Navigate(address), chromedp.WaitVisible(chromedp.CSS("#section-"+step+" form")))
		tried := tryFormattedFields(t, ctx, s, "#section-"+step)
		if step != "contact" && tried < 3 {
			t.Errorf("%s: only %d formatted fields", step, tried)
		}
		saveSection(t, ctx, step)
	}

	signInAs(t, ctx, s, asMember)
	do(t, ctx, "open the virtual terminal", chromedp.Navigate(env.URL+"/merchants/"+s.Merchant.String()+"/payments/new"),
		chromedp.WaitVisible(chromedp.ID("card-amount")))
	if got := evalString(t, ctx, `document.querySelector("form.vt-form button[type=submit]").textContent`); got != "Charge the card" {
		t.Errorf("the empty form's button reads %q", got)
	}
	if tried := tryFormattedFields(t, ctx, s, "form.vt-form"); tried != 6 {
		t.Errorf("the card form shows %d formatted fields, want 6 (amount, tip, tax, card number, expiry, ZIP code)", tried)
	}
	cardKeptOutOfMarkup(t, ctx)
	if got := evalString(t, ctx, `document.querySelector("form.vt-form button[type=submit]").textContent`); got != "Charge $2,469.00" {
		t.Errorf("the button names %q, want the total of amount and tip, Charge $2,469.00", got)
	}
	do(t, ctx, "an authorization", chromedp.Click(chromedp.ID("card-action-auth")))
	if got := evalString(t, ctx, `document.querySelector("form.vt-form button[type=submit]").textContent`); got != "Authorize $2,469.00" {
		t.Errorf("an authorization's button names %q", got)
	}
	do(t, ctx, "send the sale", chromedp.Click(chromedp.ID("card-action-sale")), chromedp.SendKeys(chromedp.ID("card-cvc"), "1234"),
		chromedp.Click(chromedp.CSS("form.vt-form button[type=submit]")), chromedp.WaitVisible(chromedp.CSS("#tx-status .badge")))
	if got := evalString(t, ctx, `document.querySelector("#tx-status .badge").textContent.trim() + " | " + document.querySelector("h1").textContent`); got != "Approved | Sale of $2,469.00" {
		t.Errorf("the formatted card payment: %q", got)
	}
}

// tryFormattedFields runs its kind's case in every visible formatted field
// within, and returns how many it tried.
func tryFormattedFields(t *testing.T, ctx context.Context, s *apptest.Showcase, within string) int {
	t.Helper()
	var fields []struct{ ID, Kind, Mode, Type string }
	js := fmt.Sprintf(`Array.from(document.querySelectorAll(%q)).filter(function(i){ return i.getClientRects().length && !i.closest("details:not([open])") && !i.disabled; })
		.map(function(i){ return {ID: i.id, Kind: i.getAttribute("data-format"), Mode: i.getAttribute("inputmode") || "", Type: i.type}; })`, within+" input[data-format]")
	if err := evalJSON(ctx, js, &fields); err != nil {
		t.Fatal(err)
	}
	for _, f := range fields {
		c, ok := formatCases[f.Kind]
		if !ok {
			t.Errorf("%s: no case for the kind %q", f.ID, f.Kind)
			continue
		}
		wantMode := map[string]string{"money": "decimal", "phone": "", "zip": "numeric"}[f.Kind]
		if f.Kind == "card" || f.Kind == "expiry" || f.Kind == "ssn" || f.Kind == "tin" {
			wantMode = "numeric"
		}
		if f.Kind == "phone" && f.Type != "tel" || f.Kind != "zip" && f.Mode != wantMode || f.Kind == "zip" && f.Mode != "" && f.Mode != "numeric" {
			t.Errorf("%s (%s): inputmode %q, type %q", f.ID, f.Kind, f.Mode, f.Type)
		}
		tryField(t, ctx, s, f.ID, c)
	}
	return len(fields)
}

// tryField types, edits and pastes one field, checking value and caret.
func tryField(t *testing.T, ctx context.Context, s *apptest.Showcase, id string, c formatCase) {
	t.Helper()
	clear := fmt.Sprintf(`(function(){ var i = document.getElementById(%q); i.focus(); i.value = ""; i.setSelectionRange(0, 0); return true; })()`, id)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](clear)); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "type into "+id, chromedp.KeyEvent(c.typed))
	expectField(t, ctx, id, "typed "+c.typed, c.shown, len([]rune(c.shown)))
	for _, e := range c.edits {
		at := fmt.Sprintf(`(function(){ var i = document.getElementById(%q); i.focus(); i.setSelectionRange(%d, %d); return true; })()`, id, e.at, e.at)
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](at)); err != nil {
			t.Fatal(err)
		}
		do(t, ctx, "edit "+id, chromedp.KeyEvent(e.keys))
		expectField(t, ctx, id, fmt.Sprintf("%q typed at %d", e.keys, e.at), e.shown, e.caret)
	}
	paste := c.paste(s)
	pasteInto(t, ctx, id, paste)
	want := c.pasted
	if want == "" {
		want = paste
	}
	expectField(t, ctx, id, "pasted "+paste, want, len([]rune(want)))
	posted := evalString(t, ctx, fmt.Sprintf(`(function(){ var i = document.getElementById(%q); return new FormData(i.form).get(i.name); })()`, id))
	if posted != want {
		t.Errorf("%s posts %q, want %q", id, posted, want)
	}
}

func expectField(t *testing.T, ctx context.Context, id, after, value string, caret int) {
	t.Helper()
	var got struct {
		Value string
		Caret int
	}
	if err := evalJSON(ctx, fmt.Sprintf(`(function(){ var i = document.getElementById(%q); return {Value: i.value, Caret: i.selectionStart}; })()`, id), &got); err != nil {
		t.Fatal(err)
	}
	if got.Value != value || got.Caret != caret {
		t.Errorf("%s, %s: %q with the caret at %d, want %q at %d", id, after, got.Value, got.Caret, value, caret)
	}
}

// pasteInto selects the field's value and pastes text over it from the
// clipboard (Ctrl+V's paste command), as a person does.
func pasteInto(t *testing.T, ctx context.Context, id, text string) {
	t.Helper()
	js := fmt.Sprintf(`(async function(){ var i = document.getElementById(%q); i.focus(); i.select();
		window.lastInputType = ""; i.addEventListener("input", function(e){ window.lastInputType = e.inputType; }, {once: true});
		await navigator.clipboard.writeText(%q); return true; })()`, id, text)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatalf("clipboard: %v", err)
	}
	for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeKeyDown, input.DispatchKeyEventTypeKeyUp} {
		p := input.DispatchKeyEventParams{Type: typ, Key: "v", Code: "KeyV", WindowsVirtualKeyCode: 86, Modifiers: 2}
		if typ == input.DispatchKeyEventTypeKeyDown {
			p.Commands = []string{"paste"}
		}
		if _, err := chromedp.Call(ctx, input.DispatchKeyEvent, p); err != nil {
			t.Fatal(err)
		}
	}
	if got := evalString(t, ctx, `window.lastInputType`); got != "insertFromPaste" {
		t.Fatalf("%s: the paste came as %q", id, got)
	}
}

// cardKeptOutOfMarkup: the card number typed is in no attribute of the
// page, its field keeps autocomplete off, and htmx saves no snapshot of the
// page into its history (the form carries hx-history="false"): a link that
// pushes a new address, as htmx's own links do, leaves the history cache
// without the card form.
func cardKeptOutOfMarkup(t *testing.T, ctx context.Context) {
	t.Helper()
	var got struct {
		Markup, Autocomplete, Cache string
		NoHistory, Requested        bool
	}
	js := `(async function(){
		var out = {Markup: document.documentElement.outerHTML, Autocomplete: document.getElementById("card-number").getAttribute("autocomplete"),
			NoHistory: !!document.querySelector("form.vt-form[hx-history=false]")};
		var a = document.createElement("a");
		a.setAttribute("hx-get", location.pathname + "?tab=ach"); a.setAttribute("hx-push-url", "true"); a.setAttribute("hx-target", "this");
		a.setAttribute("hx-swap", "none"); a.textContent = "away"; document.body.appendChild(a); htmx.process(a);
		out.Requested = await new Promise(function(done){
			document.body.addEventListener("htmx:afterRequest", function(){ done(true); }, {once: true});
			setTimeout(function(){ done(false); }, 10000);
			a.click(); });
		out.Cache = sessionStorage.getItem("htmx-history-cache") || "";
		a.remove();
		return out; })()`
	if err := evalJSON(ctx, js, &got, chromedp.EvalAwaitPromise); err != nil {
		t.Fatal(err)
	}
	for _, digits := range []string{"3782 822463 10005", "378282246310005"} {
		if strings.Contains(got.Markup, digits) {
			t.Errorf("the card number is in the page's markup")
		}
		if strings.Contains(got.Cache, digits) || strings.Contains(got.Cache, "card-number") {
			t.Errorf("htmx's history cache holds the card form: %.200s", got.Cache)
		}
	}
	if !got.Requested {
		t.Errorf("htmx made no request of the link that pushes an address")
	}
	if got.Autocomplete != "off" || !got.NoHistory {
		t.Errorf("card number autocomplete=%q, form hx-history=false: %v", got.Autocomplete, got.NoHistory)
	}
}

// saveSection presses the section's save button and waits for the status its
// answer shows. An autosave of a value typed on the way (moving from field to
// field is a change) may still be answering when the button is pressed: its
// status speaks of that value, so only the answer to the press is read.
func saveSection(t *testing.T, ctx context.Context, step string) {
	t.Helper()
	section := "#section-" + step
	listen := fmt.Sprintf(`(function(){ window.savePressed = false;
		document.addEventListener("htmx:afterSettle", function settled(e){
			var c = e.detail.requestConfig;
			if (!c || !c.triggeringEvent || c.triggeringEvent.type !== "submit" || !e.detail.elt.closest(%q)) return;
			window.savePressed = true; document.removeEventListener("htmx:afterSettle", settled); });
		return true; })()`, section)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](listen)); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "save "+step, chromedp.Click(chromedp.CSS(section+" .save-bar button[type=submit]")))
	status, err := chromedp.Run(ctx, chromedp.Poll[string](fmt.Sprintf(`(function(){ var s = document.querySelector(%q); return window.savePressed && s && /^(Saved|Not saved)/.test(s.textContent.trim()) ? s.textContent.trim() : ""; })()`,
		section+" [data-save-status]"), chromedp.WithPollingTimeout(20*time.Second)))
	if err != nil {
		t.Fatalf("%s: no save status: %v", step, err)
	}
	problems := evalString(t, ctx, fmt.Sprintf(`Array.from(document.querySelectorAll(%q)).map(function(i){
		var m = document.getElementById(i.id + "-error"); return i.id + ": " + (m ? m.textContent : "?"); }).join("; ")`, section+" input[data-format][aria-invalid=true]"))
	if !strings.HasPrefix(status, "Saved") || problems != "" {
		t.Errorf("%s: %q; refused: %s", step, status, problems)
	}
}

func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func evalString(t *testing.T, ctx context.Context, js string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return s
}

func evalJSON(ctx context.Context, js string, out any, opts ...chromedp.EvaluateOption) error {
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[json.RawMessage](js, opts...))
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, out)
}
