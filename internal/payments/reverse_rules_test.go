package payments

import "testing"

// allFacts lists every combination of the facts a reversal plan reads.
func allFacts() []reverseFacts {
	var out []reverseFacts
	for bits := range 1 << 8 {
		b := func(i int) bool { return bits&(1<<i) != 0 }
		out = append(out, reverseFacts{reversible: b(0), terminal: b(1), authorization: b(2), openVoid: b(3),
			left: b(4), settled: b(5), refunds: b(6), pastWindow: b(7)})
	}
	return out
}

// The table, row by row: every payment whose facts meet a row's conditions
// is planned by that row and by no other; each row's plan is the one its
// name says (TestReversePlanBranches checks each against the ledger).
func TestReverseRulesRowByRow(t *testing.T) {
	for _, row := range reverseRules {
		t.Run(row.name, func(t *testing.T) {
			met := 0
			for _, f := range allFacts() {
				if !row.when.matches(f) {
					continue
				}
				met++
				if got := reverseRuleFor(f); got.name != row.name {
					t.Fatalf("%+v meets %q but is planned by %q", f, row.name, got.name)
				}
			}
			if met == 0 {
				t.Fatal("no payment meets the row")
			}
			then := row.then
			switch {
			case then.becomesRefund && (!then.void || !then.deadline):
				t.Error("a void that becomes a refund is a void past its deadline")
			case then.releaseAll && (then.refund || then.deadline):
				t.Error("an authorization is released by a void, with no window, never refunded")
			case then.why == "":
				t.Error("the row does not say why")
			}
		})
	}
}

// Every combination of facts meets exactly one row: the table is complete
// and its rows exclude each other.
func TestReverseRulesCoverEveryPayment(t *testing.T) {
	for _, f := range allFacts() {
		var rows []string
		for _, r := range reverseRules {
			if r.when.matches(f) {
				rows = append(rows, r.name)
			}
		}
		if len(rows) != 1 {
			t.Errorf("%+v meets %d rows: %v", f, len(rows), rows)
		}
	}
}
