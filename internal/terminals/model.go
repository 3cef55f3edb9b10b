package terminals

import (
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/payments"

	upstream "github.com/payportal/portal/internal/upstream/terminals"
)

// Kind is what a launch asks the terminal to do.
type Kind string

// The kinds of launch. A token sale is the cloud's CreditSale with the
// UniqueTransRef of a saved card.
const (
	KindSale      Kind = "sale"
	KindTokenSale Kind = "token_sale"
	KindReturn    Kind = "return"
	KindVoid      Kind = "void"
	KindSaveCard  Kind = "save_card"
	KindTip       Kind = "tip"
)

// Kinds lists every kind, in the order the pages offer them.
var Kinds = []Kind{KindSale, KindTokenSale, KindReturn, KindSaveCard, KindVoid, KindTip}

// Valid reports whether k is a known kind.
func (k Kind) Valid() bool {
	switch k {
	case KindSale, KindTokenSale, KindReturn, KindVoid, KindSaveCard, KindTip:
		return true
	}
	return false
}

// Label names the kind for people.
func (k Kind) Label() string {
	switch k {
	case KindSale:
		return "Sale"
	case KindTokenSale:
		return "Sale with a saved card"
	case KindReturn:
		return "Return"
	case KindVoid:
		return "Void"
	case KindSaveCard:
		return "Save card"
	case KindTip:
		return "Add tip"
	}
	return string(k)
}

// HasAmount reports whether the user types an amount for the kind (a tip's
// is the new total): its row of launchRules.
func (k Kind) HasAmount() bool { return launchRules[k].amount }

// Counted reports the kinds that count as payments of an invoice: their
// approval moves the invoice's payment number on.
func (k Kind) Counted() bool { return k == KindSale || k == KindTokenSale || k == KindReturn }

// NeedsOriginal reports the kinds that act on an earlier launch: their row
// of launchRules.
func (k Kind) NeedsOriginal() bool { return launchRules[k].original }

// State is where a launch stands.
type State string

// The states of a launch. Sending, waiting and unknown are open: the
// device is locked while its launch is in one of them.
const (
	StateSending     State = "sending"
	StateWaiting     State = "waiting"
	StateUnknown     State = "unknown"
	StateApproved    State = "approved"
	StateDeclined    State = "declined"
	StateCancelled   State = "cancelled"
	StateTimedOut    State = "timed_out"
	StateCardRemoved State = "card_removed"
	StateNotSent     State = "not_sent"
	StateResent      State = "resent"
)

// Open reports whether the launch still holds its device.
func (s State) Open() bool { return s == StateSending || s == StateWaiting || s == StateUnknown }

// Label names the state for people.
func (s State) Label() string {
	switch s {
	case StateSending:
		return "Sending to the terminal"
	case StateWaiting:
		return "Waiting for the cardholder"
	case StateUnknown:
		return "Outcome unknown"
	case StateApproved:
		return "Approved"
	case StateDeclined:
		return "Declined"
	case StateCancelled:
		return "Cancelled at the terminal"
	case StateTimedOut:
		return "Timed out at the terminal"
	case StateCardRemoved:
		return "Card removed too early"
	case StateNotSent:
		return "Not sent"
	case StateResent:
		return "Sent again"
	}
	return string(s)
}

// Tone is the badge colour of the state: ok, bad, wait, warn or muted.
func (s State) Tone() string {
	switch s {
	case StateApproved:
		return "ok"
	case StateDeclined, StateCardRemoved:
		return "bad"
	case StateSending, StateWaiting:
		return "wait"
	case StateUnknown:
		return "warn"
	}
	return "muted"
}

// stateOf maps the terminal's outcome to a state.
func stateOf(o upstream.Outcome) State {
	switch o {
	case upstream.OutcomeApproved:
		return StateApproved
	case upstream.OutcomeCancelled:
		return StateCancelled
	case upstream.OutcomeTimedOut:
		return StateTimedOut
	case upstream.OutcomeCardRemoved:
		return StateCardRemoved
	}
	return StateDeclined
}

// Resolution says how a finished launch got its outcome.
type Resolution string

// The resolutions.
const (
	ResolvedByTerminal Resolution = "terminal" // the result, read while following
	ResolvedByRecheck  Resolution = "recheck"  // the result, found by a slow recheck of an unknown launch
	ResolvedByUser     Resolution = "user"     // a person said what the terminal showed
	ResolvedByRefusal  Resolution = "refused"  // the cloud refused the launch: nothing was sent to the device
	ResolvedByResend   Resolution = "resent"   // a person sent the same request again
)

// Launch is one transaction launched on a terminal (a terminal_launches row).
type Launch struct {
	ID             uuid.UUID
	MerchantID     uuid.UUID
	LocationID     string
	DeviceName     string
	Kind           Kind
	State          State
	AmountCents    *int64
	BaseCents      *int64
	InvoiceRef     string
	PaymentNumber  *int32
	TransactionRef string
	Cashier        string
	OriginalID     *uuid.UUID
	LinkedLedgerID *uuid.UUID
	ResendOf       *uuid.UUID
	Reason         string
	TestMode       bool
	FormToken      uuid.UUID
	CreatedBy      uuid.UUID
	CreatedAt      time.Time
	SentAt         *time.Time
	LaunchedAt     *time.Time
	UniqueTransID  *string
	Follower       *string
	LeaseUntil     *time.Time
	RecheckUntil   *time.Time
	Polls          int32
	FinishedAt     *time.Time
	Resolution     *string
	ResolvedBy     *uuid.UUID
	ResultMessage  string
	ApprovalNumber string
	MaskedAccount  string
	CardBrand      string
	EntryMethod    string
	ProcessedCents *int64
	TippedCents    *int64
	AdjustedCents  *int64
	BatchNumber    string
	Duplicate      bool
	Problem        string
	LedgerID       *uuid.UUID
}

// Amount returns the launch's amount in cents, or 0.
func (l *Launch) Amount() int64 { return deref(l.AmountCents) }

// TipCents is the tip a tip launch asks for: the new total less the sale.
func (l *Launch) TipCents() int64 {
	if l.Kind != KindTip || l.AmountCents == nil || l.BaseCents == nil {
		return 0
	}
	return *l.AmountCents - *l.BaseCents
}

// CloudID is the cloud's UniqueTransID, or "".
func (l *Launch) CloudID() string { return deref(l.UniqueTransID) }

// Last4 is the last four digits of the card read, or "".
func (l *Launch) Last4() string {
	m := l.MaskedAccount
	if len(m) < 4 {
		return ""
	}
	return m[len(m)-4:]
}

// Device is one terminal of a location as the cloud's configuration listed
// it, with the portal's evidence of its health.
type Device struct {
	LocationID         string
	DeviceName         string
	MerchantID         uuid.UUID
	Model              string
	SerialNumber       string
	IsDefault          bool
	PromptTip          bool
	RequestSignature   bool
	MandatorySignature bool
	Active             bool
	RefreshedAt        time.Time
	RemovedAt          *time.Time
	LastOKAt           *time.Time
	LastOKMs           *int32
	LastResultAt       *time.Time
	ErrorStreak        int32
	LastError          string
	LastErrorAt        *time.Time
}

// Config is what the portal knows of a location's configuration download.
type Config struct {
	LocationID     string
	MerchantID     uuid.UUID
	FetchedAt      *time.Time
	AttemptedAt    time.Time
	FetchMs        *int32
	Error          string
	ControllerName string
	LastHeartbeat  *time.Time
	ShortIDs       bool
}

// FormatCents writes cents as the pages show money: $1,234.50.
func FormatCents(c int64) string { return payments.FormatCents(c) }

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func ptr[T any](v T) *T { return &v }

// AmountText is the launch's amount for the pages ("" when none).
func (l *Launch) AmountText() string {
	if l.AmountCents == nil {
		return ""
	}
	return FormatCents(*l.AmountCents)
}

// ProcessedText is the amount the terminal processed ("" when none).
func (l *Launch) ProcessedText() string {
	if l.ProcessedCents == nil {
		return ""
	}
	return FormatCents(*l.ProcessedCents)
}

// TipText is the tip a tip launch asks for.
func (l *Launch) TipText() string { return FormatCents(l.TipCents()) }

// CardText names the card read: "Visa ending 4223" ("" when none).
func (l *Launch) CardText() string { return cardText(l) }

// Title names the launch: "Sale of 12.50".
func (l *Launch) Title() string {
	switch {
	case l.Kind == KindTip && l.AmountCents != nil:
		return "Tip: new total " + FormatCents(*l.AmountCents)
	case l.AmountCents != nil:
		return l.Kind.Label() + " of " + FormatCents(*l.AmountCents)
	}
	return l.Kind.Label()
}

// Phrase is the state's label inside a sentence.
func (s State) Phrase() string { return strings.ToLower(s.Label()) }

// ConfirmedByPerson reports an outcome recorded on a person's word.
func (l *Launch) ConfirmedByPerson() bool { return deref(l.Resolution) == string(ResolvedByUser) }
