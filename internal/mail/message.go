// Package mail sends the portal's e-mail through an outbox: a message is first
// stored, in the transaction of whatever decided to send it, together with a
// River job that delivers it over SMTP with retries. Admins read the outbox at
// /admin/outbox; without an SMTP server messages stay there, marked held.
package mail

import (
	"fmt"
	"time"

	"github.com/google/uuid"
)

// Kind says what a message is for.
type Kind string

// The kinds of message the portal sends.
const (
	// KindHandoff carries the hand-off link to the merchant's contact.
	KindHandoff Kind = "handoff"
	// KindInvitation carries a new user's one-time link to choose a password.
	KindInvitation Kind = "invitation"
	// KindMerchantAccess tells a merchant user they were given access to
	// another merchant.
	KindMerchantAccess Kind = "merchant_access"
	// KindMerchantAlert raises to the owning rep and the admins what the
	// upstream said of a boarded merchant (declined, withdrawn).
	KindMerchantAlert Kind = "merchant_alert"
	// KindReceipt carries a payment receipt to a merchant's customer.
	KindReceipt Kind = "receipt"
	// KindWebhookDisabled tells the admins the portal disabled a partner's webhook
	// endpoint after its deliveries failed for three days.
	KindWebhookDisabled Kind = "webhook_disabled"
)

// Label is the kind in words, for the outbox page.
func (k Kind) Label() string {
	switch k {
	case KindHandoff:
		return "Hand-off link"
	case KindInvitation:
		return "Invitation"
	case KindHandoffReminder:
		return "Reminder to the merchant"
	case KindRepNotice:
		return "Notice to the rep"
	case KindDigest:
		return "Weekly digest"
	case KindMerchantAccess:
		return "Merchant access"
	case KindMerchantAlert:
		return "Merchant alert"
	case KindReceipt:
		return "Payment receipt"
	case KindWebhookDisabled:
		return "Webhook endpoint disabled"
	}
	return string(k)
}

// Status is where a message stands in delivery.
type Status string

// Delivery states.
const (
	// StatusPending waits for its first or next delivery attempt.
	StatusPending Status = "pending"
	// StatusSent was accepted by the SMTP server.
	StatusSent Status = "sent"
	// StatusFailed was refused for good, or every attempt failed.
	StatusFailed Status = "failed"
	// StatusHeld stays in the outbox because no SMTP server is configured.
	StatusHeld Status = "held"
)

// Label is the status in words for people.
func (s Status) Label() string {
	switch s {
	case StatusPending:
		return "Queued"
	case StatusSent:
		return "Sent"
	case StatusFailed:
		return "Failed"
	case StatusHeld:
		return "Not delivered — no SMTP server configured"
	}
	return string(s)
}

// Content is what a message says: its subject, its plain-text and HTML parts and, when it
// carries one, its secret link, which the bodies show as LinkPlaceholder (secret_link.go).
type Content struct {
	Subject string
	Text    string
	HTML    string
	// SecretLink is given by the e-mail builders with the bodies, and sealed by the
	// outbox; a stored message reads it back empty (HasSecretLink says it has one).
	SecretLink SecretLink
}

// Message is one e-mail in the outbox.
type Message struct {
	ID uuid.UUID
	// ApplicationID links the message to the application it is about, if any.
	ApplicationID *uuid.UUID
	Kind          Kind
	To            string // bare address
	ToName        string
	// ReplyTo is where the recipient's answer goes, e.g. the rep's address.
	ReplyTo string
	Content
	Status    Status
	Attempts  int
	LastError string
	// sealedLink is the stored, sealed secret link.
	sealedLink string
	// ResentFrom is the message this one copies, when someone sent it again.
	ResentFrom    *uuid.UUID
	CreatedBy     *uuid.UUID
	CreatedAt     time.Time
	SentAt        *time.Time
	NextAttemptAt *time.Time
}

// StatusText describes the delivery state in one line, with the attempts made
// so far while it is still being retried.
func (m Message) StatusText() string {
	if m.Status == StatusPending && m.Attempts > 0 {
		return fmt.Sprintf("Retrying (%d failed %s)", m.Attempts, plural(m.Attempts, "attempt", "attempts"))
	}
	return m.Status.Label()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
