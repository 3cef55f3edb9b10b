package insights

import "github.com/payportal/portal/internal/states"

// Step is a step of the onboarding funnel.
type Step int

// The steps, in the order of the main path, then the two ways out.
const (
	StepCreated Step = iota
	StepSubmitted
	StepLinked
	StepOpened
	StepAccepted
	StepBoarded
	StepDeclined
	StepWithdrawn
	stepCount
)

// mainPath is the funnel's path from a draft to a boarded merchant.
var mainPath = []Step{StepCreated, StepSubmitted, StepLinked, StepOpened, StepAccepted, StepBoarded}

// exits are the ways an application leaves the path.
var exits = []Step{StepDeclined, StepWithdrawn}

// Title names the step for people.
func (s Step) Title() string {
	return [...]string{"Created", "Submitted", "Linked", "Opened", "Accepted", "Boarded", "Declined", "Withdrawn"}[s]
}

// Explain says which event marks the step: for the processor's states, in the words of
// the state table (internal/states).
func (s Step) Explain() string {
	switch s {
	case StepCreated:
		return "The draft was started."
	case StepSubmitted:
		return "The rep submitted it."
	case StepLinked:
		return "The processor's link was e-mailed to the merchant."
	}
	st := states.Upstream(s.upstreamStates()[0])
	return st.Label + ": " + st.Explanation
}

// Key names the step in CSV and URLs.
func (s Step) Key() string {
	return [...]string{"created", "submitted", "linked", "opened", "accepted", "boarded", "declined", "withdrawn"}[s]
}

// upstreamStates are the processor's states that mark a step: boarded, installed and
// active all mean boarded (states.Boarded).
func (s Step) upstreamStates() []string {
	switch s {
	case StepOpened:
		return []string{"inProgress"}
	case StepAccepted:
		return []string{"processing"}
	case StepBoarded:
		var out []string
		for _, code := range states.UpstreamCodes() {
			if states.Boarded(code) {
				out = append(out, code)
			}
		}
		return out
	case StepDeclined:
		return []string{"declined"}
	case StepWithdrawn:
		return []string{"withdrawn"}
	}
	return nil
}
