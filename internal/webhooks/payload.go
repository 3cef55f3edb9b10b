package webhooks

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// Payload is the JSON body of every delivery, in the Standard Webhooks shape: the
// event's id (also the webhook-id header), its type, when it happened, and the object
// it is about.
type Payload struct {
	ID        uuid.UUID `json:"id"`
	Type      EventType `json:"type"`
	Timestamp string    `json:"timestamp"`
	Data      Data      `json:"data"`
}

// Data is the object an event is about: its kind, id, version and state, and the ids
// and amounts that say which it is. It never holds personal data (no names, addresses,
// e-mails, tax or bank numbers, card data); a partner reads more through the API.
type Data struct {
	Object ObjectKind `json:"object"`
	ID     uuid.UUID  `json:"id"`
	// Version counts the events about this object: each is one more than the last, in
	// the order the changes committed. A receiver keeps the highest it has applied and
	// drops news with a lower one (deliveries may arrive out of order).
	Version int64 `json:"version"`
	// State is where the object stands after the change: an application's or a
	// merchant's outcome (as the API's "state"), a payment's or a terminal
	// transaction's status.
	State string `json:"state"`
	// Status and ProcessorStatus are an application's portal status and the
	// processor's own state of it (also of a merchant's application).
	Status          string `json:"status,omitempty"`
	ProcessorStatus string `json:"processorStatus,omitempty"`
	// Suspended says whether a merchant's payments and terminals are stopped.
	Suspended     *bool      `json:"suspended,omitempty"`
	ApplicationID *uuid.UUID `json:"applicationId,omitempty"`
	MerchantID    *uuid.UUID `json:"merchantId,omitempty"`
	// OriginalID is the payment a refund returns; TransactionID the ledger line of a
	// terminal transaction.
	OriginalID    *uuid.UUID `json:"originalId,omitempty"`
	TransactionID *uuid.UUID `json:"transactionId,omitempty"`
	// Kind and Source are a payment's or terminal transaction's kind (sale, refund…)
	// and where it was run (card, ach, terminal).
	Kind   string `json:"kind,omitempty"`
	Source string `json:"source,omitempty"`
	// Amount is a decimal string ("12.50") in Currency; ApprovedAmount what the
	// processor approved.
	Amount         string `json:"amount,omitempty"`
	ApprovedAmount string `json:"approvedAmount,omitempty"`
	Currency       string `json:"currency,omitempty"`
}

// body is the exact bytes signed and sent for an event.
func body(id uuid.UUID, t EventType, at time.Time, d Data) ([]byte, error) {
	return json.Marshal(Payload{ID: id, Type: t, Timestamp: at.UTC().Format(time.RFC3339Nano), Data: d})
}

// Money writes cents as the decimal string of the payload ("-12.05").
func Money(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return fmt.Sprintf("%s%d.%02d", sign, cents/100, cents%100)
}
