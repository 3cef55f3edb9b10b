package audit

import (
	"encoding/json"
	"strings"

	"github.com/google/uuid"
)

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
	What   string `json:"what,omitempty"`
	Amount string `json:"amount,omitempty"`
	// Card is "Visa ending 1111" at most.
	Card      string `json:"card,omitempty"`
	Reference string `json:"reference,omitempty"`
	// Note says more: "after a duplicate warning", "linked to <id>".
	Note string `json:"note,omitempty"`
}

// describePaymentEvent words the payments room's entries for the history.
func describePaymentEvent(action string, raw []byte) (string, bool) {
	var d PaymentDetails
	_ = json.Unmarshal(raw, &d)
	what := strings.ToLower(d.What)
	amount := ""
	if d.Amount != "" {
		amount = " of " + d.Amount
	}
	card := ""
	if d.Card != "" {
		card = " on " + d.Card
	}
	note := ""
	if d.Note != "" {
		note = " (" + d.Note + ")"
	}
	switch action {
	case ActionPaymentRequested:
		return "took a " + or(what, "payment") + amount + card + note, true
	case ActionCaptureRequested:
		return "captured an authorization" + amount + card + note, true
	case ActionVoidRequested:
		return "voided a " + or(what, "payment") + amount + card + note, true
	case ActionRefundRequested:
		return "refunded" + amount + card + note, true
	case ActionTipRequested:
		return "adjusted a tip" + amount + card + note, true
	case ActionMethodSaved:
		return "saved a payment method" + card + note, true
	case ActionMethodRemoved:
		return "removed a saved payment method" + card, true
	case ActionReceiptSent:
		return "e-mailed a receipt" + amount, true
	case ActionCustomerCreated:
		return "added a customer", true
	case ActionCustomerChanged:
		return "changed a customer", true
	case ActionLedgerExported:
		return "exported the ledger" + note, true
	}
	return "", false
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
