package workspace_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/google/uuid"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/a11y"
	"github.com/payportal/portal/internal/testutil/apptest"
	"github.com/payportal/portal/internal/testutil/browser"
)

// poll waits for a JavaScript condition, failing with what.
func poll(t *testing.T, ctx context.Context, what, js string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// shownSteps is the names of the step panels not hidden.
const shownSteps = `Array.from(document.querySelectorAll("[data-step-panel]:not([hidden])")).map(p => p.dataset.stepPanel).join(",")`

// A rep moves through the application one step at a time, with the keyboard too; each
// step's counter follows the checklist as fields are saved; a checklist link opens the
// field's step with its label in view; and a save refused because another tab saved first
// says so beside the field.
func TestBrowserStepsFollowTheChecklist(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	rep, pw := env.CreateUser(t, "rep@example.com", models.RoleSalesRep)
	ctx := browser.New(t)
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	browser.SignIn(t, ctx, env.URL, rep.Email, pw)
	if err := chromedp.Do(ctx, chromedp.Navigate(env.URL+"/"), chromedp.WaitVisible(chromedp.ID("new-application")),
		chromedp.Click(chromedp.ID("new-application")), chromedp.WaitVisible(chromedp.ID("section-business"))); err != nil {
		t.Fatalf("create an application: %v", err)
	}
	loc := eval[string](t, ctx, `location.pathname`)
	id := uuid.MustParse(strings.TrimPrefix(loc, "/applications/"))

	if got := eval[string](t, ctx, shownSteps); got != "business" {
		t.Fatalf("steps shown: %q, want the business alone", got)
	}
	// One Save: the shown step's (Save and continue) and the notes' beside it.
	if got := eval[string](t, ctx, `Array.from(document.querySelectorAll(".save-bar button")).filter(b => b.offsetParent !== null).map(b => b.textContent.trim()).join("|")`); got != "Save and continue to Owners and officers|Save notes" {
		t.Errorf("visible Save buttons: %q", got)
	}

	// The keyboard: Tab reaches the owners step; Enter opens it and marks it current.
	if err := chromedp.Do(ctx,
		chromedp.Focus(chromedp.ID("step-business")),
		chromedp.KeyEvent(kb.Tab),
	); err != nil {
		t.Fatal(err)
	}
	if focused := eval[string](t, ctx, `document.activeElement.id`); focused != "step-owners" {
		t.Fatalf("Tab from the business step focused %q", focused)
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Enter)); err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, "the owners step did not open", shownSteps+` === "owners" && document.getElementById("step-owners").getAttribute("aria-current") === "step" && !document.getElementById("step-business").hasAttribute("aria-current") && location.search === "?step=owners"`)

	// The step's counter is the checklist's, and both change when a field is saved.
	stepLeft := `document.querySelector("#step-owners [data-step-state]").textContent`
	checklistLeft := `(document.querySelector("[data-checklist-section=owners] .checklist-section-count") || {textContent: "0 left"}).textContent`
	before := eval[string](t, ctx, stepLeft)
	if c := eval[string](t, ctx, checklistLeft); c != before {
		t.Fatalf("the owners step says %q, the checklist %q", before, c)
	}
	if err := chromedp.Do(ctx, browser.Retype("owners.0.first_name", "Jane"), browser.Retype("owners.0.last_name", "Doe")); err != nil {
		t.Fatal(err)
	}
	browser.WaitSaved(t, ctx, "owners")
	poll(t, ctx, "the owners step's counter did not follow the save", stepLeft+` !== `+quote(before)+` && `+stepLeft+` === `+checklistLeft)
	if cur := eval[string](t, ctx, `document.querySelector("#stepper [aria-current=step]").id`); cur != "step-owners" {
		t.Errorf("after the stepper's refresh the current step is %q", cur)
	}

	// A checklist link opens its step and shows the field with its label, in view.
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-checklist-section=business] summary`)),
		chromedp.Click(chromedp.CSS(`#checklist a[data-goto-field="business.tin"]`)),
	); err != nil {
		t.Fatalf("follow the checklist link: %v", err)
	}
	poll(t, ctx, "the checklist link did not open the business step at the TIN", shownSteps+` === "business" && document.activeElement.id === "business.tin"`)
	if !eval[bool](t, ctx, `(() => { const l = document.querySelector('label[for="business.tin"]'), r = l.getBoundingClientRect();
		const top = document.elementFromPoint(r.left + 2, r.top + r.height / 2);
		return r.top >= 0 && r.bottom <= innerHeight && (top === l || l.contains(top)); })()`) {
		t.Error("the TIN's label is not in view, or is covered")
	}

	// Save and continue goes on to the next step once saved.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#section-business button[data-continue]`))); err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, "Save and continue did not open the owners step", shownSteps+` === "owners" && document.activeElement.id === "section-owners-heading"`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("step-business"))); err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, "the business step did not open", shownSteps+` === "business"`)

	// Another tab saves first: the refusal is beside the field typed in.
	other := env.Client(t)
	other.Login(rep.Email, pw)
	_, version := other.ShowApplication(id)
	if res := other.HTMXPost("/applications/"+id.String()+"/sections/business", url.Values{"version": {version}, "business.website": {"bluefern.example"}}); res.Status != 200 {
		t.Fatalf("the other tab's save: %d", res.Status)
	}
	if err := chromedp.Do(ctx, browser.Retype("business.dba", "Blue Fern")); err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, "no conflict beside the field", `!!document.getElementById("business.dba-conflict")`)
	if !eval[bool](t, ctx, `(() => { const f = document.getElementById("business.dba").getBoundingClientRect(),
		n = document.getElementById("business.dba-conflict"), r = n.getBoundingClientRect();
		return r.top >= f.bottom - 1 && r.top - f.bottom < 60 && n.textContent.includes("changed elsewhere") &&
			document.getElementById("business.dba").getAttribute("aria-describedby").includes("business.dba-conflict"); })()`) {
		t.Error("the conflict message is not right under the field, or not tied to it")
	}
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }

// Every step, the review and the stepper fit a phone and a desktop: nothing scrolls
// sideways or is cut off, no word breaks in two, and axe finds nothing serious.
func TestBrowserStepsFitPhoneAndDesktop(t *testing.T) {
	t.Parallel()
	env, ctx := repWithNewApplication(t, 3*time.Minute)
	id := strings.TrimPrefix(eval[string](t, ctx, `location.pathname`), "/applications/")
	if err := chromedp.Do(ctx, browser.Retype("business.legal_name", "Blue Fern Coffee Roasters and Bakery of Northern California LLC"),
		browser.Retype("business.monthly_volume", "$62,000"), browser.Retype("business.phone", "415.555.0100")); err != nil {
		t.Fatal(err)
	}
	browser.WaitSaved(t, ctx, "business")
	// Saved and shown back in its stored form, formatted as typed (an autosave of a
	// value half typed may answer first: wait for the last one).
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("business.monthly_volume").value === "62,000" &&
		document.getElementById("business.phone").value === "(415) 555-0100" && !document.querySelector("#section-business .field-error") &&
		!document.querySelector("form.htmx-request")`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		v := eval[string](t, ctx, `document.getElementById("business.monthly_volume").value + " | " + document.getElementById("business.phone").value`)
		t.Errorf("$62,000 and 415.555.0100 shown back as %q: %v", v, err)
	}

	words := ".stepper-title, .stepper-state, .checklist-section-title, .review-values dt, .save-bar button, .review-group-head a"
	for _, width := range []int64{1280, 390} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 844)); err != nil {
			t.Fatal(err)
		}
		for _, step := range []string{"business", "owners", "bank", "contact", "pricing", "documents", "review"} {
			ready := "#section-" + step
			switch step {
			case "documents":
				ready = "#documents-heading"
			case "review":
				ready = "#review-heading"
			}
			if err := chromedp.Do(ctx, chromedp.Navigate(env.URL+"/applications/"+id+"?step="+step), chromedp.WaitVisible(chromedp.CSS(ready))); err != nil {
				t.Fatalf("%d px, step %s: %v", width, step, err)
			}
			if got := eval[string](t, ctx, shownSteps); got != step {
				t.Errorf("%d px, step %s: panels shown %q", width, step, got)
			}
			for _, p := range browser.SidewaysProblems(t, ctx, words) {
				t.Errorf("%d px, step %s: %s", width, step, p)
			}
			for _, v := range a11y.Audit(t, ctx) {
				t.Errorf("%d px, step %s: %s", width, step, v)
			}
		}
	}
	// The review says what was typed, written for people.
	review := browser.TextOf(t, ctx, chromedp.CSS("#review"))
	for _, want := range []string{"$62,000.00", "(415) 555-0100", "Blue Fern Coffee Roasters"} {
		if !strings.Contains(review, want) {
			t.Errorf("the review lacks %q", want)
		}
	}
}
