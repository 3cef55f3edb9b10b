package payments

import (
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// Source is where a transaction was run.
type Source string

// The sources of the ledger's transactions.
const (
	SourceCard     Source = "card"     // keyed in the virtual terminal, or a saved card
	SourceACH      Source = "ach"      // a bank account, keyed or saved
	SourceTerminal Source = "terminal" // a card terminal, through the terminal cloud
)

// Kind is what a transaction does.
type Kind string

// The kinds of transaction. Capture, void and tip_adjust are operations on an
// original (ParentID); a refund links to the payment it returns when one is
// known.
const (
	KindSale          Kind = "sale"
	KindAuthorization Kind = "authorization"
	KindCapture       Kind = "capture"
	KindRefund        Kind = "refund"
	KindVoid          Kind = "void"
	KindTipAdjust     Kind = "tip_adjust"
	KindSaveMethod    Kind = "save_method"
)

// IsOperation reports the kinds that act on an original and are shown in its
// timeline rather than as lines of their own in the ledger's list.
func (k Kind) IsOperation() bool { return k == KindCapture || k == KindVoid || k == KindTipAdjust }

// Status is where a transaction stands.
type Status string

// The statuses of a transaction.
const (
	// StatusPending: the intent is recorded and the request is on its way.
	StatusPending Status = "pending"
	// StatusChecking: the outcome is unknown (no answer, a crash); it is being
	// read back. Never resolved by a second request.
	StatusChecking Status = "checking"
	StatusApproved Status = "approved"
	// StatusPartial: approved for less than asked (ApprovedCents, BalanceCents).
	StatusPartial  Status = "partial"
	StatusDeclined Status = "declined"
	// StatusFailed: the processor refused the request (it did nothing).
	StatusFailed Status = "failed"
	// StatusNotCharged: an unknown outcome that read-backs over the grace
	// period all found absent.
	StatusNotCharged Status = "not_charged"
	// StatusVoided and StatusCaptured are set on an original by its approved
	// void or capture.
	StatusVoided   Status = "voided"
	StatusCaptured Status = "captured"
	// StatusCancelled: cancelled before the processor acted (at a terminal).
	StatusCancelled Status = "cancelled"
)

// Open reports a status that is not final: the request is on its way or its
// outcome is being checked.
func (s Status) Open() bool { return s == StatusPending || s == StatusChecking }

// Succeeded reports a status of a transaction the processor approved (wholly or
// in part), including an original later voided or captured.
func (s Status) Succeeded() bool {
	return s == StatusApproved || s == StatusPartial || s == StatusVoided || s == StatusCaptured
}

// Card is how a card or bank account is kept: never more than the brand, the
// first six and the last four digits.
type Card struct {
	Brand       string // "Visa", ..., "Checking account"
	First6      string // cards only
	Last4       string
	AccountType string // ACH: Checking or Savings
}

// Masked shows the card as 411111******1111 (the middle's length unknown, so a
// fixed run of stars), or the bank account as ****6789.
func (c Card) Masked() string {
	switch {
	case c.Last4 == "":
		return ""
	case c.First6 != "":
		return c.First6 + "******" + c.Last4
	}
	return "****" + c.Last4
}

// Label is the card for people: "Visa ending 1111".
func (c Card) Label() string {
	if c.Last4 == "" {
		return c.Brand
	}
	if c.Brand == "" {
		return "ending " + c.Last4
	}
	return c.Brand + " ending " + c.Last4
}

// Billing is the card holder's or account holder's billing data: personal
// data, sealed at rest.
type Billing struct {
	Name       string `json:"name,omitempty"`
	Address    string `json:"address,omitempty"`
	PostalCode string `json:"postalCode,omitempty"`
}

// IsZero reports no billing data.
func (b Billing) IsZero() bool { return b == Billing{} }

// Transaction is one row of the ledger.
type Transaction struct {
	ID         uuid.UUID
	MerchantID uuid.UUID
	Source     Source
	Kind       Kind
	Status     Status
	// ParentID is the original of an operation or a refund.
	ParentID      *uuid.UUID
	CustomerID    *uuid.UUID
	SavedMethodID *uuid.UUID
	// AmountCents is before tip, tax included; ApprovedCents what the
	// processor approved (tip included); BalanceCents what a partial approval
	// left; RefundedCents the approved refunds recorded against this row.
	AmountCents, TipCents, TaxCents            int64
	ApprovedCents, BalanceCents, RefundedCents int64
	Reference                                  string
	Card                                       Card
	Billing                                    Billing
	LocationID, DeviceName                     string
	UniqueTransID                              string
	UpstreamType, ApprovalCode, ResultMessage  string
	AVSCode, CVVCode, BatchNumber              string
	HeldForReview                              bool
	ReviewReasons                              string
	Details                                    map[string]string
	CreatedBy                                  *uuid.UUID
	CreatedByName                              string // who, as the list shows them
	CreatedAt, UpdatedAt                       time.Time
	AnsweredAt, CheckUntil                     *time.Time
}

// TotalCents is what was asked: amount and tip.
func (t *Transaction) TotalCents() int64 { return t.AmountCents + t.TipCents }

// RefundableCents is what is left to refund of an approved payment, counting
// only the refunds recorded as approved; RecordRefund also counts those still
// on their way.
func (t *Transaction) RefundableCents() int64 {
	if !t.Status.Succeeded() || t.Status == StatusVoided {
		return 0
	}
	return max(t.ApprovedCents-t.RefundedCents, 0)
}

// NewTransaction is what Ledger.Record stores: the intent, before the
// upstream call.
type NewTransaction struct {
	// ID is the transaction's id; for direct payments it is the
	// externalTransactionId and the idempotency key. Zero picks a new one.
	ID         uuid.UUID
	MerchantID uuid.UUID
	Source     Source
	Kind       Kind
	// Status defaults to StatusPending.
	Status                          Status
	ParentID, CustomerID            *uuid.UUID
	SavedMethodID                   *uuid.UUID
	AmountCents, TipCents, TaxCents int64
	Reference                       string
	Card                            Card
	Billing                         Billing
	LocationID, DeviceName          string
	Details                         map[string]string
	CreatedBy                       *uuid.UUID
	// CheckUntil, when set, is the end of the grace period of an unknown
	// outcome (see Ledger.Answer and the checker).
	CheckUntil *time.Time
	// Event is the timeline's first entry ("requested"); its TransactionID,
	// ActorID and At are filled in.
	Event Event
}

// Answer is the processor's answer (or what became of the request), applied by
// Ledger.Answer to a transaction still open.
type Answer struct {
	Status Status
	// Kind, when set, changes the row's kind: a void that the processor turned
	// into a refund (the 25-minute rule) is recorded as the refund it is.
	Kind                                      Kind
	UniqueTransID                             string
	UpstreamType, ApprovalCode, ResultMessage string
	AVSCode, CVVCode, BatchNumber             string
	// ApprovedCents and BalanceCents are set when the answer says them;
	// TipCents too (a tip adjustment's new tip).
	ApprovedCents, BalanceCents, TipCents *int64
	// Card fills what the request did not know (a saved card, a terminal).
	Card          Card
	BillingName   string
	HeldForReview bool
	ReviewReasons string
	Details       map[string]string
	// CheckUntil keeps an unknown outcome open until then (StatusChecking).
	CheckUntil *time.Time
	// Event is the timeline's entry for this answer.
	Event Event
}

// EventKind names an entry of a transaction's timeline. The payments room's
// kinds are below; other rooms may add their own (the column is free text).
type EventKind string

// The timeline entries of the virtual terminal.
const (
	EventRequested          EventKind = "requested"
	EventApproved           EventKind = "approved"
	EventPartial            EventKind = "partial"
	EventDeclined           EventKind = "declined"
	EventFailed             EventKind = "failed"
	EventUnknown            EventKind = "unknown"
	EventCheckedNotFound    EventKind = "checked_not_found"
	EventNotCharged         EventKind = "not_charged"
	EventVoidRequested      EventKind = "void_requested"
	EventVoided             EventKind = "voided"
	EventVoidBecameRefund   EventKind = "void_became_refund"
	EventRefundRequested    EventKind = "refund_requested"
	EventRefunded           EventKind = "refunded"
	EventCaptureRequested   EventKind = "capture_requested"
	EventCaptured           EventKind = "captured"
	EventTipRequested       EventKind = "tip_requested"
	EventTipAdjusted        EventKind = "tip_adjusted"
	EventReceiptSent        EventKind = "receipt_sent"
	EventDuplicateConfirmed EventKind = "duplicate_confirmed"
	EventMethodSaved        EventKind = "method_saved"
	EventConsentRecorded    EventKind = "consent_recorded"
	EventAuthorizationNacha EventKind = "ach_authorization"
)

// Event is one entry of a transaction's timeline.
type Event struct {
	ID            int64
	TransactionID uuid.UUID
	Kind          EventKind
	ActorID       *uuid.UUID
	ActorName     string // when read
	// RelatedID is the other transaction involved (the refund of a payment,
	// the void of a sale).
	RelatedID *uuid.UUID
	// Message is what happened in words; Details says more. Neither ever
	// holds card data.
	Message string
	Details map[string]string
	At      time.Time
}

// Errors of the ledger.
var (
	// ErrAlreadyRecorded: a transaction with this id exists (a form sent
	// twice). Record returns the existing row with it.
	ErrAlreadyRecorded = errors.New("payments: transaction already recorded")
	// ErrNotOpen: the transaction already has its final answer.
	ErrNotOpen = errors.New("payments: transaction already answered")
)

// RefundCapError refuses a refund larger than what is left to refund.
type RefundCapError struct {
	// LeftCents is what can still be refunded, counting refunds on their way.
	LeftCents int64
}

// Error says how much is left.
func (e *RefundCapError) Error() string {
	return fmt.Sprintf("payments: refund exceeds the %s left to refund", FormatCents(e.LeftCents))
}

// FormatCents writes cents as dollars: 123450 → "$1,234.50".
func FormatCents(c int64) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	whole := fmt.Sprintf("%d", c/100)
	for i := len(whole) - 3; i > 0; i -= 3 {
		whole = whole[:i] + "," + whole[i:]
	}
	return fmt.Sprintf("%s$%s.%02d", sign, whole, c%100)
}
