package insights

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

// Explain says which event marks the step.
func (s Step) Explain() string {
	return [...]string{
		"the draft was started",
		"the rep submitted it",
		"the processor's link was e-mailed to the merchant",
		"the merchant started at the processor (inProgress)",
		"the merchant accepted (processing)",
		"the processor boarded the merchant",
		"the processor declined it",
		"it was withdrawn",
	}[s]
}

// Key names the step in CSV and URLs.
func (s Step) Key() string {
	return [...]string{"created", "submitted", "linked", "opened", "accepted", "boarded", "declined", "withdrawn"}[s]
}

// upstreamState is the processor's state that marks a step, or "".
func (s Step) upstreamState() string {
	switch s {
	case StepOpened:
		return "inProgress"
	case StepAccepted:
		return "processing"
	case StepBoarded:
		return "boarded"
	case StepDeclined:
		return "declined"
	case StepWithdrawn:
		return "withdrawn"
	}
	return ""
}
