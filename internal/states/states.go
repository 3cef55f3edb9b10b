// Package states is the one table of where an application stands: every
// state of the portal's own workflow (draft, submitting, needs attention,
// sent to the merchant) and every application state the upstream publishes
// (initiated ... active), each with its label, its kind (the colour it is
// shown in) and a short explanation, grouped into the outcomes people filter
// by (boarded, declined, withdrawn, in review, more information needed, ...).
//
// The dashboard, the application page, the merchant pages, the audit
// history and the filters all read it, so a state is worded and coloured the
// same everywhere. It is a foundation: it imports only models.
package states

import "github.com/payportal/portal/internal/models"

// Kind is how a state is shown: the colour of its pill. A label always says
// the state in words, so nothing rests on the colour alone.
type Kind string

// The kinds of state.
const (
	// KindNeutral: nothing has happened yet (a draft).
	KindNeutral Kind = "neutral"
	// KindProgress: the portal or the processor is working on it.
	KindProgress Kind = "progress"
	// KindWaiting: waiting for the merchant.
	KindWaiting Kind = "waiting"
	// KindAttention: someone must act (the rep, the merchant).
	KindAttention Kind = "attention"
	// KindSuccess: boarded or later.
	KindSuccess Kind = "success"
	// KindDanger: declined.
	KindDanger Kind = "danger"
	// KindMuted: withdrawn.
	KindMuted Kind = "muted"
)

// The outcomes: what an application's status leads with, and what the
// filters offer.
const (
	OutcomeDraft          = "draft"
	OutcomeSubmitting     = "submitting"
	OutcomeNeedsAttention = "needs_attention"
	OutcomeWithMerchant   = "with_merchant"
	OutcomeInReview       = "in_review"
	OutcomeMoreInfo       = "more_information"
	OutcomeBoarded        = "boarded"
	OutcomeDeclined       = "declined"
	OutcomeWithdrawn      = "withdrawn"
)

// State is one row of the table.
type State struct {
	// Code is the portal's status ("draft", "linked", ...) or the upstream's
	// state ("processingPending", ...).
	Code string
	// Upstream says the code is the processor's, not the portal's.
	Upstream bool
	// Label is the state in a few words, for pills, lists and filters.
	Label string
	Kind  Kind
	// Explanation says in one or two sentences what the state means.
	Explanation string
	// Action says what the rep can do about it; empty when nothing.
	Action string
	// Outcome is the outcome the state belongs to.
	Outcome string
}

// Class is the CSS class of the state's pill.
func (s State) Class() string { return "state state-" + string(s.Kind) }

// table is every state, the portal's first, then the upstream's in the order
// of their lifecycle. It is the one place states are worded.
var table = []State{
	{Code: string(models.StatusDraft), Label: "Draft", Kind: KindNeutral, Outcome: OutcomeDraft,
		Explanation: "Being filled in; nothing has been sent to the processor yet.",
		Action:      "Complete the checklist, then submit."},
	{Code: string(models.StatusSubmitting), Label: "Submitting", Kind: KindProgress, Outcome: OutcomeSubmitting,
		Explanation: "The portal is sending the application to the processor."},
	{Code: string(models.StatusNeedsAttention), Label: "Needs attention", Kind: KindAttention, Outcome: OutcomeNeedsAttention,
		Explanation: "The submission stopped before the merchant's link was created.",
		Action:      "Correct what the message says and submit again."},
	{Code: string(models.StatusLinked), Label: "Sent to merchant", Kind: KindWaiting, Outcome: OutcomeWithMerchant,
		Explanation: "The merchant has been e-mailed their link and has not finished yet.",
		Action:      "If the merchant has not opened it, send the e-mail again."},

	{Code: "initiated", Upstream: true, Label: "Started at the processor", Kind: KindWaiting, Outcome: OutcomeWithMerchant,
		Explanation: "The processor has the application; the merchant's link is not created yet."},
	{Code: "requested", Upstream: true, Label: "Sent to merchant", Kind: KindWaiting, Outcome: OutcomeWithMerchant,
		Explanation: "The merchant's link exists; the processor is waiting for the merchant to open it.",
		Action:      "If the merchant has not opened it, send the e-mail again."},
	{Code: "inProgress", Upstream: true, Label: "Merchant completing", Kind: KindWaiting, Outcome: OutcomeWithMerchant,
		Explanation: "The merchant opened the link and is completing the application at the processor."},
	{Code: "processing", Upstream: true, Label: "In review", Kind: KindProgress, Outcome: OutcomeInReview,
		Explanation: "The merchant accepted the terms; the processor is reviewing the application."},
	{Code: "processingPending", Upstream: true, Label: "More information needed", Kind: KindAttention, Outcome: OutcomeMoreInfo,
		Explanation: "The processor needs more information before it can decide. It shows its request to the merchant on its own pages; the portal is told only that something is needed.",
		Action:      "Ask the merchant to reopen their link and answer the processor's request, or upload the document the processor asked for (a voided check, for instance) and tell the processor it is there."},
	{Code: "withdrawn", Upstream: true, Label: "Withdrawn", Kind: KindMuted, Outcome: OutcomeWithdrawn,
		Explanation: "The application was withdrawn; the processor will not board this merchant."},
	{Code: "declined", Upstream: true, Label: "Declined", Kind: KindDanger, Outcome: OutcomeDeclined,
		Explanation: "The processor declined the application."},
	{Code: "boarded", Upstream: true, Label: "Boarded", Kind: KindSuccess, Outcome: OutcomeBoarded,
		Explanation: "Approved and boarded: the merchant can take payments once its credentials are in place."},
	{Code: "installed", Upstream: true, Label: "Installed", Kind: KindSuccess, Outcome: OutcomeBoarded,
		Explanation: "Boarded, and the merchant's equipment is installed."},
	{Code: "active", Upstream: true, Label: "Active", Kind: KindSuccess, Outcome: OutcomeBoarded,
		Explanation: "Boarded and processing payments."},
}

// outcomeLabels name the outcomes, in the order the filters offer them.
var outcomeLabels = []struct{ code, label string }{
	{OutcomeDraft, "Draft"},
	{OutcomeSubmitting, "Submitting"},
	{OutcomeNeedsAttention, "Needs attention"},
	{OutcomeWithMerchant, "With the merchant"},
	{OutcomeInReview, "In review"},
	{OutcomeMoreInfo, "More information needed"},
	{OutcomeBoarded, "Boarded"},
	{OutcomeDeclined, "Declined"},
	{OutcomeWithdrawn, "Withdrawn"},
}

// UpstreamCodes are the application states the upstream publishes, in the
// order of its lifecycle.
func UpstreamCodes() []string {
	var out []string
	for _, s := range table {
		if s.Upstream {
			out = append(out, s.Code)
		}
	}
	return out
}

// Upstream returns the row of an upstream state; an unknown state gets a
// neutral row that shows it as sent.
func Upstream(code string) State {
	for _, s := range table {
		if s.Upstream && s.Code == code {
			return s
		}
	}
	return State{Code: code, Upstream: true, Label: code, Kind: KindNeutral, Explanation: "The processor reported “" + code + "”."}
}

// Portal returns the row of one of the portal's own statuses.
func Portal(status models.ApplicationStatus) State {
	for _, s := range table {
		if !s.Upstream && s.Code == string(status) {
			return s
		}
	}
	return State{Code: string(status), Label: string(status), Kind: KindNeutral}
}

// IsUpstream reports whether code is a state the upstream publishes.
func IsUpstream(code string) bool {
	for _, s := range table {
		if s.Upstream && s.Code == code {
			return true
		}
	}
	return false
}

// Decided reports whether an upstream state is the processor's decision
// (boarded or later, declined, withdrawn): it outranks the portal's own
// status.
func Decided(upstream string) bool {
	switch upstream {
	case "boarded", "installed", "active", "declined", "withdrawn":
		return true
	}
	return false
}

// decided lists the decided states, for Filter.
var decided = []string{"boarded", "installed", "active", "declined", "withdrawn"}

// Boarded reports whether an upstream state means the merchant is boarded
// (boarded, installed, active).
func Boarded(upstream string) bool {
	return upstream == "boarded" || upstream == "installed" || upstream == "active"
}

// Of is where an application stands, leading with the outcome: the
// processor's decision when there is one, else the portal's own status while
// the application is with the rep or the portal, else what the processor
// last said of it (nil: nothing yet). A linked application whose processor
// state is still "initiated" shows as linked: the portal holds the link, so
// that state is older than what it knows (its webhook can land after the link
// is recorded, and before the link's own).
func Of(status models.ApplicationStatus, upstream *string) State {
	up := ""
	if upstream != nil {
		up = *upstream
	}
	switch {
	case up != "" && Decided(up):
		return Upstream(up)
	case status != models.StatusLinked || up == "" || up == upstreamBeforeLink:
		return Portal(status)
	}
	return Upstream(up)
}

// upstreamBeforeLink is the processor's state of an application whose link is
// not created yet.
const upstreamBeforeLink = "initiated"

// Outcome is one choice of the status filter.
type Outcome struct {
	Code, Label string
}

// Outcomes lists the outcomes in the order the filters offer them.
func Outcomes() []Outcome {
	out := make([]Outcome, len(outcomeLabels))
	for i, o := range outcomeLabels {
		out[i] = Outcome{Code: o.code, Label: o.label}
	}
	return out
}

// OutcomeLabel names an outcome; "" for an unknown one.
func OutcomeLabel(code string) string {
	for _, o := range outcomeLabels {
		if o.code == code {
			return o.label
		}
	}
	return ""
}

// Filter says which applications have an outcome, as Of decides it, in
// terms of the two columns it reads: the portal's status and the upstream
// state. Every field narrows the match; an empty one does not.
type Filter struct {
	// Portal: the portal's status is one of these.
	Portal []string
	// Upstream: the upstream state is one of these, or, with
	// UpstreamOrNone, none is known yet.
	Upstream       []string
	UpstreamOrNone bool
	// NotDecided: the upstream state is none, or not a decided one (see
	// Decided); NotDecidedStates lists those to exclude.
	NotDecided       bool
	NotDecidedStates []string
}

// FilterOf returns the filter of an outcome, or false for an unknown one.
func FilterOf(outcome string) (Filter, bool) {
	upstreamOf := func() []string {
		var out []string
		for _, s := range table {
			if s.Upstream && s.Outcome == outcome {
				out = append(out, s.Code)
			}
		}
		return out
	}
	switch outcome {
	case OutcomeDraft, OutcomeSubmitting, OutcomeNeedsAttention:
		return Filter{Portal: []string{outcome}, NotDecided: true, NotDecidedStates: decided}, true
	case OutcomeWithMerchant:
		return Filter{Portal: []string{string(models.StatusLinked)}, Upstream: upstreamOf(), UpstreamOrNone: true}, true
	case OutcomeInReview, OutcomeMoreInfo:
		return Filter{Portal: []string{string(models.StatusLinked)}, Upstream: upstreamOf()}, true
	case OutcomeBoarded, OutcomeDeclined, OutcomeWithdrawn:
		return Filter{Upstream: upstreamOf()}, true
	}
	return Filter{}, false
}
