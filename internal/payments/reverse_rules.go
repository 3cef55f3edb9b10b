package payments

// The reversal plan is a decision table: the facts of a payment select one
// row of reverseRules, and the row says what "Reverse" does and why. The
// rows exclude each other (a test checks every combination of facts meets
// exactly one), so their order does not matter.

// reverseFacts are what the plan of a payment depends on.
type reverseFacts struct {
	reversible    bool // an approved (in full or in part, or captured) sale or authorization
	terminal      bool // a card terminal's transaction, reversed on the terminal
	authorization bool // an authorization not captured: released by a void, whatever its age
	openVoid      bool // a void of it is on its way
	left          bool // something is left to reverse
	settled       bool // a void was refused as settled
	refunds       bool // it has refunds, approved or on their way
	pastWindow    bool // 25 minutes have passed since the sale or its capture
}

// fact is a condition of a row on one fact: either value, true or false.
type fact int8

const (
	anyValue fact = iota
	yes
	no
)

// holds reports whether b meets the condition.
func (c fact) holds(b bool) bool { return c == anyValue || (c == yes) == b }

// reverseWhen is a row's conditions, fact by fact.
type reverseWhen struct {
	reversible, terminal, authorization, openVoid, left, settled, refunds, pastWindow fact
}

// matches reports whether f meets every condition.
func (w reverseWhen) matches(f reverseFacts) bool {
	return w.reversible.holds(f.reversible) && w.terminal.holds(f.terminal) && w.authorization.holds(f.authorization) &&
		w.openVoid.holds(f.openVoid) && w.left.holds(f.left) && w.settled.holds(f.settled) &&
		w.refunds.holds(f.refunds) && w.pastWindow.holds(f.pastWindow)
}

// reverseThen is what a row plans.
type reverseThen struct {
	void, refund, becomesRefund bool
	// releaseAll: an authorization is released in full (LeftCents is the
	// approved amount); deadline: the 25-minute window applies.
	releaseAll, deadline bool
	why                  string
}

// reverseRule is one row of the table.
type reverseRule struct {
	name string
	when reverseWhen
	then reverseThen
}

// reverseRules is the table.
var reverseRules = []reverseRule{
	{"not an approved payment", reverseWhen{reversible: no},
		reverseThen{why: "Only an approved payment can be reversed."}},
	// The terminal cloud voids and returns its own transactions; area B knows
	// nothing of them (the terminals room's pages do it).
	{"terminal transaction", reverseWhen{reversible: yes, terminal: yes},
		reverseThen{why: "A card terminal's transaction is voided, or returned, on the terminal: open it on the merchant's terminals page."}},
	{"authorization, void on its way", reverseWhen{reversible: yes, terminal: no, authorization: yes, openVoid: yes},
		reverseThen{releaseAll: true, why: "A void of this authorization is on its way; wait for its answer."}},
	{"authorization", reverseWhen{reversible: yes, terminal: no, authorization: yes, openVoid: no},
		reverseThen{void: true, releaseAll: true, why: "An authorization is released with a void: the hold on the card ends and nothing is charged."}},
	{"void on its way", reverseWhen{reversible: yes, terminal: no, authorization: no, openVoid: yes},
		reverseThen{why: "A void of this payment is on its way; wait for its answer."}},
	{"nothing left", reverseWhen{reversible: yes, terminal: no, authorization: no, openVoid: no, left: no},
		reverseThen{why: "Nothing is left to reverse."}},
	{"settled", reverseWhen{reversible: yes, terminal: no, authorization: no, openVoid: no, left: yes, settled: yes},
		reverseThen{refund: true, why: "This payment has settled, so it cannot be voided: it is refunded to the same card or account instead."}},
	{"refunded in part", reverseWhen{reversible: yes, terminal: no, authorization: no, openVoid: no, left: yes, settled: no, refunds: yes},
		reverseThen{refund: true, why: "This payment has refunds, so the rest is refunded too."}},
	{"past the void window", reverseWhen{reversible: yes, terminal: no, authorization: no, openVoid: no, left: yes, settled: no, refunds: no, pastWindow: yes},
		reverseThen{void: true, refund: true, becomesRefund: true, deadline: true,
			why: "More than 25 minutes have passed: the processor turns a void into a refund of the full amount."}},
	{"voidable", reverseWhen{reversible: yes, terminal: no, authorization: no, openVoid: no, left: yes, settled: no, refunds: no, pastWindow: no},
		reverseThen{void: true, refund: true, deadline: true,
			why: "Reversing the full amount voids the payment: nothing reaches the customer's statement. A part is refunded instead."}},
}

// reverseRuleFor returns the row f meets.
func reverseRuleFor(f reverseFacts) reverseRule {
	for _, r := range reverseRules {
		if r.when.matches(f) {
			return r
		}
	}
	// Unreachable: the rows cover every combination of facts (tested).
	return reverseRules[0]
}
