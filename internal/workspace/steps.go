package workspace

import (
	"strconv"

	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/models"
)

// StepReview is the last step of the application: everything entered, then Submit.
const StepReview = "review"

// stepSections are the sections shown as steps before the review, in order. The internal
// notes are no step: they are not part of the application and sit beside every step.
var stepSections = []string{
	drafts.SectionBusiness, drafts.SectionOwners, drafts.SectionBank, drafts.SectionContact,
	drafts.SectionPricing, drafts.SectionDocuments,
}

// Step is one step of the stepper. Its state comes from the readiness checklist alone, the
// one source of truth for what is missing.
type Step struct {
	Name, Title string
	Number      int
	// Outstanding counts the step's checklist items; for the review, all of them.
	Outstanding int
	// WaitsFor, when set, names the earlier step this one depends on: the documents
	// cannot be complete before the pricing model says which are required.
	WaitsFor string
	// StepsLeft counts, for the review, the steps before it that are not done.
	StepsLeft int
	Current   bool
	// Next is the step after this one, "" for the review.
	Next string
}

// Done reports whether nothing is missing in the step.
func (s Step) Done() bool { return s.Outstanding == 0 && s.WaitsFor == "" }

// StateText says where the step stands, in words (the colour only repeats it).
func (s Step) StateText() string {
	switch {
	case s.Name == StepReview && s.Outstanding == 0:
		return "Ready to submit"
	case s.Name == StepReview && s.StepsLeft == 1:
		return "1 step to finish"
	case s.Name == StepReview:
		return strconv.Itoa(s.StepsLeft) + " steps to finish"
	case s.WaitsFor != "" && s.Outstanding == 0:
		return "After " + s.WaitsFor
	case s.Outstanding == 0:
		return "Complete"
	}
	return strconv.Itoa(s.Outstanding) + " left"
}

// StepNames lists the steps in order, the review last.
func StepNames() []string { return append(append([]string(nil), stepSections...), StepReview) }

// IsStep reports whether name is a step.
func IsStep(name string) bool {
	for _, s := range StepNames() {
		if s == name {
			return true
		}
	}
	return false
}

// NextStep is the step after name, "" after the review or for an unknown name.
func NextStep(name string) string {
	names := StepNames()
	for i, s := range names {
		if s == name && i+1 < len(names) {
			return names[i+1]
		}
	}
	return ""
}

// stepTitle names a step.
func stepTitle(name string) string {
	if name == StepReview {
		return "Review and submit"
	}
	return drafts.SectionTitle(name)
}

// Steps lays out the stepper of an application from its checklist; current is the step
// shown ("" marks none).
func Steps(c drafts.Checklist, current string) []Step {
	var out []Step
	left := 0
	for i, name := range StepNames() {
		s := Step{Name: name, Title: stepTitle(name), Number: i + 1, Outstanding: len(c.Section(name).Items),
			Current: name == current, Next: NextStep(name)}
		switch {
		case name == StepReview:
			s.Outstanding, s.StepsLeft = c.Count(), left
		case name == drafts.SectionDocuments && !pricingChosen(c):
			s.WaitsFor = "pricing"
		}
		if name != StepReview && !s.Done() {
			left++
		}
		out = append(out, s)
	}
	return out
}

// pricingChosen reports whether the checklist has a pricing model: without one, the
// documents it requires are not known yet.
func pricingChosen(c drafts.Checklist) bool {
	for _, item := range c.Section(drafts.SectionPricing).Items {
		if item.Field == drafts.FieldPricingModel {
			return false
		}
	}
	return true
}

// firstStep is where an application opens without a chosen step: the first step with
// something missing, or the review when nothing is.
func firstStep(c drafts.Checklist) string {
	for _, name := range stepSections {
		if len(c.Section(name).Items) > 0 {
			return name
		}
	}
	return StepReview
}

// ChecklistView is the data of the checklist fragment, which also refreshes the stepper
// (out of band), so the two never disagree.
type ChecklistView struct {
	App       *models.Application
	Checklist drafts.Checklist
	// Current is the step the page shows (the page's script sends it), marked current in
	// the stepper the refresh brings, so it never flickers unmarked.
	Current string
}

// Steps is the stepper of the refresh.
func (v *ChecklistView) Steps() []Step { return Steps(v.Checklist, v.Current) }
