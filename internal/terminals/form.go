package terminals

import (
	"strings"
	"unicode"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/httpx"
	upstream "github.com/payportal/portal/internal/upstream/terminals"
)

// LaunchRequest is a launch as the launch form posts it.
type LaunchRequest struct {
	// FormToken is the form's one-time token: the same form posted twice
	// (a double click, a resubmission) is one launch.
	FormToken  string `form:"form_token"`
	Kind       string `form:"kind"`
	LocationID string `form:"location"`
	Device     string `form:"device"`
	// Amount is the sale or return amount; for a tip, the new total.
	Amount  string `form:"amount"`
	Invoice string `form:"invoice"`
	Cashier string `form:"cashier"`
	// Original is the launch a void or tip acts on, or the saved card of a
	// token sale.
	Original string `form:"original"`
	// Linked is the ledger transaction (a sale) a return is linked to.
	Linked string `form:"linked"`
	Reason string `form:"reason"`
	// Consent: the cardholder agreed to have their card saved.
	Consent httpx.Checkbox `form:"consent"`
	// ConfirmTip: the user saw the warning of a tip above 20%.
	ConfirmTip httpx.Checkbox `form:"confirm_tip"`
}

// Field limits. The cloud takes references and cashiers of at most 50
// characters; the payment number needs room after the invoice.
const (
	maxInvoice = 40
	maxCashier = 50
	maxReason  = 200
	maxAmount  = 9999999 // 99,999.99
	// tipWarnPercent is the share of the sale above which a tip asks for
	// confirmation.
	tipWarnPercent = 20
)

// parseMoney reads an amount as people type it: "12", "12.5", "$1,234.50".
func parseMoney(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "$")
	s = strings.ReplaceAll(strings.ReplaceAll(s, ",", ""), " ", "")
	if s == "" {
		return 0, false
	}
	a, err := upstream.ParseAmount(s)
	if err != nil {
		return 0, false
	}
	return int64(a), true
}

// cleanText trims s and refuses control characters.
func cleanText(s string) (string, bool) {
	s = strings.TrimSpace(s)
	for _, r := range s {
		if unicode.IsControl(r) {
			return s, false
		}
	}
	return s, true
}

// parseID reads an optional UUID: nil when empty, false when malformed.
func parseID(s string) (*uuid.UUID, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, true
	}
	id, err := uuid.Parse(s)
	if err != nil {
		return nil, false
	}
	return &id, true
}
