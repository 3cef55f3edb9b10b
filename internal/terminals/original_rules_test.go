package terminals_test

import (
	"testing"

	"github.com/payportal/portal/internal/terminals"
)

// What a void, a tip and a token sale ask of the approved launch they act on: one test
// per row of the decision table (originalRules), the rows a form reaches only rarely
// (a tip on a repeated approval, a void of a tip) included.
func TestOriginalRulesRowByRow(t *testing.T) {
	t.Parallel()
	launch := func(kind terminals.Kind) *terminals.Launch {
		return &terminals.Launch{Kind: kind, State: terminals.StateApproved}
	}
	duplicate := launch(terminals.KindSale)
	duplicate.Duplicate = true
	void := func(state terminals.State) []*terminals.Launch {
		return []*terminals.Launch{{Kind: terminals.KindVoid, State: state}}
	}
	tipped := []*terminals.Launch{{Kind: terminals.KindTip, State: terminals.StateApproved}}
	for _, tt := range []struct {
		name   string
		kind   terminals.Kind
		o      *terminals.Launch
		acting []*terminals.Launch
		want   string
	}{
		{"token sale on a saved card", terminals.KindTokenSale, launch(terminals.KindSaveCard), nil, ""},
		{"token sale on a sale", terminals.KindTokenSale, launch(terminals.KindSale), nil, "Choose a saved card."},
		{"tip on a sale", terminals.KindTip, launch(terminals.KindSale), nil, ""},
		{"tip on a token sale, tipped before", terminals.KindTip, launch(terminals.KindTokenSale), tipped, ""},
		{"tip on a tip", terminals.KindTip, launch(terminals.KindTip), nil, "A tip is added to a sale: choose the original sale, never a tip."},
		{"tip on a return", terminals.KindTip, launch(terminals.KindReturn), nil, "A tip is added to a sale: choose the original sale, never a tip."},
		{"tip on a repeated approval", terminals.KindTip, duplicate, nil, "This answer repeated an earlier approval: add the tip to that original sale."},
		{"tip on a voided sale", terminals.KindTip, launch(terminals.KindSale), void(terminals.StateApproved), "This sale was voided."},
		{"tip on a sale being voided", terminals.KindTip, launch(terminals.KindSale), void(terminals.StateWaiting), "This sale was voided."},
		{"tip on a sale whose void was declined", terminals.KindTip, launch(terminals.KindSale), void(terminals.StateDeclined), ""},
		{"void of a sale", terminals.KindVoid, launch(terminals.KindSale), nil, ""},
		{"void of a return", terminals.KindVoid, launch(terminals.KindReturn), nil, ""},
		{"void of a repeated approval", terminals.KindVoid, duplicate, nil, ""},
		{"void of a tip", terminals.KindVoid, launch(terminals.KindTip), nil, "Only a sale or a return can be voided; to undo a tip, void its sale."},
		{"void of a saved card", terminals.KindVoid, launch(terminals.KindSaveCard), nil, "Only a sale or a return can be voided; to undo a tip, void its sale."},
		{"void of a voided sale", terminals.KindVoid, launch(terminals.KindSale), void(terminals.StateApproved), "This transaction was voided already."},
		{"void of a sale being voided", terminals.KindVoid, launch(terminals.KindTokenSale), void(terminals.StateUnknown), "A void of this transaction is under way."},
		{"void of a sale whose void failed", terminals.KindVoid, launch(terminals.KindSale), void(terminals.StateNotSent), ""},
	} {
		if got := terminals.OriginalProblem(tt.kind, tt.o, tt.acting); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
