package audit

import "github.com/google/uuid"

// The actions of the payments room (internal/payments). Each is recorded twice:
// on the transaction's trail and on its merchant's, so the merchant's one
// trail holds every payment action.
const (
	ActionPaymentRequested = "payment_requested"
	ActionCaptureRequested = "capture_requested"
	ActionVoidRequested    = "void_requested"
	ActionRefundRequested  = "refund_requested"
	ActionTipRequested     = "tip_adjust_requested"
	ActionMethodSaved      = "method_save_requested"
	ActionMethodRemoved    = "method_removed"
	ActionReceiptSent      = "receipt_sent"
	ActionCustomerCreated  = "customer_created"
	ActionCustomerChanged  = "customer_changed"
	ActionLedgerExported   = "ledger_exported"
)

// Transaction is the subject of a transaction's trail.
func Transaction(id uuid.UUID) Subject { return Subject{Kind: SubjectTransaction, ID: id} }

// PaymentDetails is what a payment action's entry keeps: never card data
// beyond the brand and last four, never a cardholder's name.
type PaymentDetails struct {
	TransactionID string `json:"transaction_id,omitempty"`
	// What is the transaction's kind in words ("Sale", "ACH sale", "Refund").
	What string `json:"what,omitempty"`
	// Of is, for an operation on a payment (a capture, void, tip or refund),
	// the payment's kind in words ("Sale", "ACH sale").
	Of     string `json:"of,omitempty"`
	Amount string `json:"amount,omitempty"`
	// Tip is a tip adjustment's new tip (Amount is then the new total).
	Tip string `json:"tip,omitempty"`
	// Card is "Visa ending 1111" at most.
	Card      string `json:"card,omitempty"`
	Reference string `json:"reference,omitempty"`
	// Note says more: "after a duplicate warning", "linked to <id>".
	Note string `json:"note,omitempty"`
}

// noun is a kind in words as the middle of a sentence ("ACH sale", "sale"),
// or def when none was kept.
func noun(what, def string) string {
	if what == "" {
		return def
	}
	return midSentence(what)
}

// card is the card or account between before and after, or "".
func (d PaymentDetails) card(before, after string) string {
	if d.Card == "" {
		return ""
	}
	return before + d.Card + after
}

// note is the entry's note in brackets, or "".
func (d PaymentDetails) note() string {
	if d.Note == "" {
		return ""
	}
	return " (" + d.Note + ")"
}

// payment is the payment an entry concerns: "a sale of $5.00 on Visa ending 1111".
func (d PaymentDetails) payment(what string) string {
	return article(noun(what, "payment")) + prefixed(" of ", d.Amount) + d.card(" on ", "")
}

// paymentWords: "took an ACH sale of $12.50 on Checking account ending 6789".
func paymentWords(verb string) func(*entry) string {
	return func(e *entry) string { return verb + " " + e.p.payment(e.p.What) + e.p.note() }
}

// captureWords: "captured $12.50 of an authorization on Visa ending 1111".
func captureWords(verb string) func(*entry) string {
	return func(e *entry) string {
		amount := "all"
		if e.p.Amount != "" {
			amount = e.p.Amount
		}
		return verb + " " + amount + " of " + article(noun(e.p.Of, "authorization")) + e.p.card(" on ", "") + e.p.note()
	}
}

// voidWords: "voided a sale of $1,234.50 on Visa ending 1111". The entry's
// What is the void itself; the payment voided is Of (kept since the void's
// own kind made "voided a void").
func voidWords(verb string) func(*entry) string {
	return func(e *entry) string { return verb + " " + e.p.payment(e.p.Of) + e.p.note() }
}

// refundWords: "refunded $5.00 of a sale on Visa ending 1111".
func refundWords(verb string) func(*entry) string {
	return func(e *entry) string {
		amount := e.p.Amount
		if amount == "" {
			amount = "part"
		}
		return verb + " " + amount + " of " + article(noun(e.p.Of, "payment")) + e.p.card(" on ", "") + e.p.note()
	}
}

// tipWords: "set the tip of a sale on Visa ending 1111 to $6.00; the total is
// now $46.00" (done), "set the tip ... to $6.00 (a total of $46.00)" (tried).
// Entries written before the tip was kept give the total alone.
func tipWords(done bool) func(*entry) string {
	return func(e *entry) string {
		sale := article(noun(e.p.Of, "sale")) + e.p.card(" on ", "")
		var text string
		switch {
		case e.p.Tip != "":
			text = "set the tip of " + sale + " to " + e.p.Tip
		case done:
			text = "changed the tip of " + sale
		default:
			text = "change the tip of " + sale
		}
		switch {
		case e.p.Amount != "" && done:
			text += "; the total is now " + e.p.Amount
		case e.p.Amount != "":
			text += " (a total of " + e.p.Amount + ")"
		}
		return text + e.p.note()
	}
}

// methodWords: "saved a payment method (Visa ending 1111)".
func methodWords(verb string) func(*entry) string {
	return func(e *entry) string { return verb + " a payment method" + e.p.card(" (", ")") + e.p.note() }
}
