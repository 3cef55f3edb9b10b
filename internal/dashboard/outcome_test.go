package dashboard

import (
	"context"
	"slices"
	"testing"

	"github.com/payportal/portal/internal/states"
)

// The status filter offers the outcomes of the state table, and each finds
// exactly the applications the list shows with that outcome.
func TestListFiltersByOutcome(t *testing.T) {
	t.Parallel()
	f := newListFixture(t)
	ctx := context.Background()
	set := func(legal, status, upstream string) {
		t.Helper()
		if err := f.db.Exec(`UPDATE applications SET status = ?, upstream_status = NULLIF(?, '') WHERE id = ?`,
			status, upstream, f.apps[legal].ID).Error; err != nil {
			t.Fatal(err)
		}
	}
	set("Pure Juice Co", "linked", "boarded")
	set("Mid Market Ltd", "linked", "processingPending")
	set("Zephyr Cycles LLC", "linked", "")
	set("Acme Hardware Inc", "needs_attention", "declined")
	want := map[string][]string{
		states.OutcomeBoarded:        {"Pure Juice Co"},
		states.OutcomeMoreInfo:       {"Mid Market Ltd"},
		states.OutcomeWithMerchant:   {"Zephyr Cycles LLC"},
		states.OutcomeDeclined:       {"Acme Hardware Inc"},
		states.OutcomeNeedsAttention: nil, // declined outranks the stopped submission
		states.OutcomeDraft:          {"Blue Fern Coffee LLC"},
		states.OutcomeSubmitting:     {"Bottle Works"},
		states.OutcomeInReview:       nil,
		states.OutcomeWithdrawn:      nil,
	}
	for _, o := range states.Outcomes() {
		page, err := f.svc.List(ctx, f.admin, ListQuery{Outcome: o.Code, Sort: SortName})
		if err != nil {
			t.Fatal(err)
		}
		got := legalNames(page)
		if !slices.Equal(got, want[o.Code]) {
			t.Errorf("%s: got %q, want %q", o.Code, got, want[o.Code])
		}
		for _, r := range page.Rows {
			if r.State().Outcome != o.Code {
				t.Errorf("%s: row %s shows %s", o.Code, r.LegalName, r.State().Outcome)
			}
		}
	}
	form, q := BindListForm(map[string][]string{"status": {"boarded"}})
	if q.Outcome != states.OutcomeBoarded || len(form.Errors) > 0 {
		t.Errorf("bind boarded: %+v %+v", q, form.Errors)
	}
	if form, _ := BindListForm(map[string][]string{"status": {"nonsense"}}); form.Errors["status"] == "" {
		t.Error("an unknown status is not reported")
	}
}
