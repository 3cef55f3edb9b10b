package workspace_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/payportal/portal/internal/drafts"
	ws "github.com/payportal/portal/internal/workspace"
)

// stepPanel matches a step's panel and whether it is hidden.
func stepHidden(t *testing.T, body, step string) bool {
	t.Helper()
	m := regexp.MustCompile(`<div class="step-panel" data-step-panel="` + step + `" (hidden)?>`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no panel for step %s", step)
	}
	return m[1] != ""
}

// The application shows one step at a time: a new one opens on the business, a step is
// chosen by its link, and "Save and continue" without JavaScript goes on to the next step.
// Every step's state comes from the checklist, and the checklist's own refresh carries the
// stepper, so their counts cannot disagree.
func TestOneStepAtATime(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	id := create(t, w.repC)
	page, _ := show(t, w.repC, id)
	if !strings.Contains(page.Body, `data-step-link="business" id="step-business" aria-current="step"`) {
		t.Error("a new application does not open on the business step")
	}
	for _, step := range []string{"owners", "bank", "contact", "pricing", "documents", "review"} {
		if !stepHidden(t, page.Body, step) {
			t.Errorf("step %s is shown beside the business", step)
		}
	}
	if stepHidden(t, page.Body, "business") {
		t.Error("the business step is hidden")
	}
	if n := strings.Count(page.Body, `>Save and continue<`); n != 5 {
		t.Errorf("%d Save and continue buttons, want one per section step", n)
	}
	if strings.Contains(page.Body, ">Save business<") {
		t.Error("a section still has a Save button of its own")
	}

	res := w.repC.Get("/applications/" + id.String() + "?step=review")
	if !strings.Contains(res.Body, `id="step-review" aria-current="step"`) || stepHidden(t, res.Body, "review") || !stepHidden(t, res.Body, "business") {
		t.Error("?step=review does not show the review alone")
	}

	res = save(t, w.repC, id, "business", url.Values{"business.legal_name": {"Blue Fern Coffee LLC"}, "next": {"owners"}})
	if res.Status != http.StatusSeeOther || res.Location != "/applications/"+id.String()+"?step=owners" {
		t.Fatalf("Save and continue: %d %q", res.Status, res.Location)
	}

	// The checklist's answer: its count per section is the stepper's.
	list := w.repC.Get("/applications/" + id.String() + "/checklist")
	if !strings.Contains(list.Body, `id="stepper" class="stepper" aria-label="Steps of the application" hx-swap-oob="true"`) {
		t.Fatalf("the checklist's refresh does not carry the stepper:\n%s", list.Body)
	}
	counts := regexp.MustCompile(`data-checklist-section="(\w+)">\s*<summary><span class="checklist-section-title">[^<]*</span> <span class="checklist-section-count">(\d+) left`).FindAllStringSubmatch(list.Body, -1)
	if len(counts) == 0 {
		t.Fatal("no sections in the checklist")
	}
	for _, c := range counts {
		want := `data-step-link="` + c[1] + `" id="step-` + c[1] + `">`
		i := strings.Index(list.Body, want)
		if i < 0 {
			t.Fatalf("no step %s", c[1])
		}
		state := regexp.MustCompile(`data-step-state>([^<]*)<`).FindStringSubmatch(list.Body[i:])
		if state == nil || state[1] != c[2]+" left" {
			t.Errorf("step %s says %v, the checklist %s left", c[1], state, c[2])
		}
	}
	// Told the step shown, the refresh marks it current, so the stepper never flickers unmarked.
	if marked := w.repC.Get("/applications/" + id.String() + "/checklist?step=owners").Body; !strings.Contains(marked, `id="step-owners" aria-current="step"`) {
		t.Error("the checklist's refresh does not mark the step shown")
	}
	// Its links go to the field's step.
	if !strings.Contains(list.Body, `href="?step=business#business.tin"`) {
		t.Error("a checklist link does not lead to its step")
	}
}

// The review shows everything entered, grouped by section, with phones and amounts written
// for people and personal numbers masked, each group linking back to its step.
func TestReviewShowsWhatWasEntered(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	id := create(t, w.repC)
	save(t, w.repC, id, "business", url.Values{
		"business.legal_name": {"Blue Fern Coffee LLC"}, "business.tin": {"12-3456789"},
		"business.phone": {"415.555.0100"}, "business.monthly_volume": {"$62,000"}, "business.entity_type": {"llc"},
	})
	res := w.repC.Get("/applications/" + id.String() + "/review")
	if res.Status != http.StatusOK {
		t.Fatalf("review: %d", res.Status)
	}
	for _, want := range []string{
		`<dt>Legal name</dt><dd>Blue Fern Coffee LLC</dd>`,
		`<dt>Business phone</dt><dd>(415) 555-0100</dd>`,
		`<dt>Monthly card volume</dt><dd>$62,000.00</dd>`,
		`<dt>TIN</dt><dd>•••• 6789 <small>(hidden: last four digits)</small></dd>`,
		`<dt>Entity type</dt><dd>LLC</dd>`,
		`<a href="?step=business" data-step-link="business">Edit<span class="visually-hidden"> Business</span></a>`,
		`<h3>Pricing</h3>`, `<h3>Documents</h3>`,
		`<button id="submit-application" type="submit" disabled`,
	} {
		if !strings.Contains(res.Body, want) {
			t.Errorf("review lacks %s", want)
		}
	}
	if strings.Contains(res.Body, "3456789") && !strings.Contains(res.Body, "•••• 6789") {
		t.Error("the TIN shows unmasked")
	}
	// The form shows the phone the same way.
	page, _ := show(t, w.repC, id)
	if v, _ := inputValue(page.Body, "business.phone"); v != "(415) 555-0100" {
		t.Errorf("phone shown in the form as %q", v)
	}
}

// The documents step is not complete before a pricing model says which documents are
// required, and the review says how many steps are left rather than a count of items.
func TestStepsBeforeAPricingModelIsChosen(t *testing.T) {
	items := func(n int) []drafts.ChecklistItem {
		out := make([]drafts.ChecklistItem, n)
		for i := range out {
			out[i] = drafts.ChecklistItem{Field: "business.legal_name", Message: "Enter it."}
		}
		return out
	}
	c := drafts.Checklist{Sections: []drafts.ChecklistSection{
		{Name: drafts.SectionBusiness, Items: items(30)},
		{Name: drafts.SectionOwners, Items: items(5)},
		{Name: drafts.SectionPricing, Items: []drafts.ChecklistItem{{Field: drafts.FieldPricingModel, Message: "Choose a pricing model."}}},
	}}
	got := map[string]ws.Step{}
	for _, s := range ws.Steps(c, "") {
		got[s.Name] = s
	}
	if d := got[drafts.SectionDocuments]; d.Done() || d.StateText() != "After pricing" {
		t.Errorf("documents before a pricing model: done %t, %q", d.Done(), d.StateText())
	}
	if r := got[ws.StepReview]; r.StateText() != "4 steps to finish" {
		t.Errorf("review: %q, want 4 steps to finish (business, owners, pricing, documents)", r.StateText())
	}
	c.Sections = c.Sections[:2] // a model chosen that requires no document
	for _, s := range ws.Steps(c, "") {
		if s.Name == drafts.SectionDocuments && (!s.Done() || s.StateText() != "Complete") {
			t.Errorf("documents with a model that needs none: %q", s.StateText())
		}
		if s.Name == ws.StepReview && s.StateText() != "2 steps to finish" {
			t.Errorf("review: %q", s.StateText())
		}
	}
}

// With "The merchant enters the deposit account" ticked, the account's fields are off
// (not asked for, not sent): the account a rep typed before stays stored, and is not
// listed as wrong or missing.
func TestBankLeftToTheMerchantTurnsItsFieldsOff(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	id := create(t, w.repC)
	autosave(t, w.repC, id, "bank", url.Values{"bank.holder_name": {"Blue Fern"}, "bank.routing_number": {"011401533"}})
	// Ticked: the disabled fields are not posted; the form still carries the box.
	res := autosave(t, w.repC, id, "bank", url.Values{"bank.from_merchant": {"true"}})
	if res.Status != http.StatusOK || !strings.Contains(res.Body, `<fieldset data-bank-account disabled aria-describedby="bank-account-off">`) {
		t.Fatalf("ticked: %d, the account's fields are not off:\n%s", res.Status, res.Body)
	}
	if got := stored(t, w, id).Draft.Bank; got.HolderName != "Blue Fern" || got.RoutingNumber != "011401533" || !got.FromMerchant {
		t.Errorf("stored bank: %+v", got)
	}
	list := w.repC.Get("/applications/" + id.String() + "/checklist").Body
	if strings.Contains(list, "#bank.") {
		t.Errorf("the checklist still asks about the account left to the merchant:\n%s", list)
	}
	res = autosave(t, w.repC, id, "bank", url.Values{"bank.holder_name": {"Blue Fern"}})
	if strings.Contains(res.Body, "<fieldset data-bank-account disabled") {
		t.Error("unticked, the account's fields stay off")
	}
}
