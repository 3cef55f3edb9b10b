package states_test

import (
	"slices"
	"testing"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/states"
)

// matches applies a filter to one application's two columns, as the
// dashboard's SQL does.
func matches(f states.Filter, status models.ApplicationStatus, upstream *string) bool {
	if len(f.Portal) > 0 && !slices.Contains(f.Portal, string(status)) {
		return false
	}
	if len(f.Upstream) > 0 || f.UpstreamOrNone {
		ok := (upstream == nil && f.UpstreamOrNone) || (upstream != nil && slices.Contains(f.Upstream, *upstream))
		if !ok {
			return false
		}
	}
	if f.NotDecided && upstream != nil && slices.Contains(f.NotDecidedStates, *upstream) {
		return false
	}
	return true
}

// Every pair of the portal's status and the upstream's state (or none) has
// exactly one outcome, and the filter of that outcome, and no other, finds
// it: the status a list shows and the filter that finds it never disagree.
func TestEveryStateHasOneOutcomeAndItsFilterFindsIt(t *testing.T) {
	portal := []models.ApplicationStatus{models.StatusDraft, models.StatusSubmitting, models.StatusNeedsAttention, models.StatusLinked}
	upstream := []*string{nil}
	for _, c := range states.UpstreamCodes() {
		upstream = append(upstream, &c)
	}
	for _, p := range portal {
		for _, u := range upstream {
			st := states.Of(p, u)
			name := string(p) + "/" + deref(u)
			if st.Label == "" || st.Explanation == "" || st.Kind == "" || states.OutcomeLabel(st.Outcome) == "" {
				t.Errorf("%s: incomplete row %+v", name, st)
			}
			var found []string
			for _, o := range states.Outcomes() {
				f, ok := states.FilterOf(o.Code)
				if !ok {
					t.Fatalf("no filter for %s", o.Code)
				}
				if matches(f, p, u) {
					found = append(found, o.Code)
				}
			}
			if len(found) != 1 || found[0] != st.Outcome {
				t.Errorf("%s: shown as %s, found by the filters %v", name, st.Outcome, found)
			}
		}
	}
}

func TestOutcomeLeadsWithTheDecision(t *testing.T) {
	s := func(v string) *string { return &v }
	for _, tt := range []struct {
		status   models.ApplicationStatus
		upstream *string
		label    string
	}{
		{models.StatusDraft, nil, "Draft"},
		{models.StatusLinked, nil, "Sent to merchant"},
		// The portal holds the link: the processor's "initiated" is older news.
		{models.StatusLinked, s("initiated"), "Sent to merchant"},
		{models.StatusLinked, s("requested"), "Sent to merchant"},
		{models.StatusLinked, s("inProgress"), "Merchant completing"},
		{models.StatusLinked, s("processing"), "In review"},
		{models.StatusLinked, s("processingPending"), "More information needed"},
		{models.StatusLinked, s("boarded"), "Boarded"},
		{models.StatusLinked, s("declined"), "Declined"},
		// A decision outranks the portal's own status...
		{models.StatusNeedsAttention, s("withdrawn"), "Withdrawn"},
		// ...but news short of one does not hide a stopped submission.
		{models.StatusNeedsAttention, s("initiated"), "Needs attention"},
	} {
		if got := states.Of(tt.status, tt.upstream); got.Label != tt.label {
			t.Errorf("%s/%s = %q, want %q", tt.status, deref(tt.upstream), got.Label, tt.label)
		}
	}
	if st := states.Upstream("processingPending"); st.Kind != states.KindAttention || st.Action == "" {
		t.Errorf("processingPending: %+v", st)
	}
	if st := states.Upstream("somethingNew"); st.Label != "somethingNew" {
		t.Errorf("an unknown state shows as sent: %+v", st)
	}
}

func deref(s *string) string {
	if s == nil {
		return "none"
	}
	return *s
}
