package webhooks

import "slices"

// EventType names what happened, as partners subscribe to it: "object.change".
type EventType string

// The events partners can subscribe to.
const (
	ApplicationSubmitted        EventType = "application.submitted"
	ApplicationLinked           EventType = "application.linked"
	ApplicationOpened           EventType = "application.opened"
	ApplicationAccepted         EventType = "application.accepted"
	ApplicationNeedsInformation EventType = "application.needs_information"
	ApplicationBoarded          EventType = "application.boarded"
	ApplicationDeclined         EventType = "application.declined"
	ApplicationWithdrawn        EventType = "application.withdrawn"
	MerchantBoarded             EventType = "merchant.boarded"
	MerchantSuspended           EventType = "merchant.suspended"
	MerchantResumed             EventType = "merchant.resumed"
	PaymentApproved             EventType = "payment.approved"
	PaymentDeclined             EventType = "payment.declined"
	PaymentVoided               EventType = "payment.voided"
	PaymentRefunded             EventType = "payment.refunded"
	PaymentOutcomeResolved      EventType = "payment.unknown_outcome_resolved"
	TerminalTransactionFinished EventType = "terminal_transaction.finished"
)

// ObjectKind is what an event is about; it is the "object" of the payload's data.
type ObjectKind string

// The objects events are about.
const (
	ObjectApplication         ObjectKind = "application"
	ObjectMerchant            ObjectKind = "merchant"
	ObjectPayment             ObjectKind = "payment"
	ObjectTerminalTransaction ObjectKind = "terminal_transaction"
)

// EventInfo describes one event type for the admins' form and the docs.
type EventInfo struct {
	Type   EventType
	Object ObjectKind
	// Description says when it is sent.
	Description string
}

// Catalogue lists every event type, grouped by object, in the order the form offers them.
var Catalogue = []EventInfo{
	{ApplicationSubmitted, ObjectApplication, "An application was submitted to the processor."},
	{ApplicationLinked, ObjectApplication, "The processor created the merchant's link; the merchant was e-mailed it."},
	{ApplicationOpened, ObjectApplication, "The merchant opened the link and is completing the application at the processor."},
	{ApplicationAccepted, ObjectApplication, "The merchant accepted the terms; the processor is reviewing the application."},
	{ApplicationNeedsInformation, ObjectApplication, "The processor needs more information before it decides."},
	{ApplicationBoarded, ObjectApplication, "The processor approved and boarded the merchant (sent once per application)."},
	{ApplicationDeclined, ObjectApplication, "The processor declined the application."},
	{ApplicationWithdrawn, ObjectApplication, "The application was withdrawn."},
	{MerchantBoarded, ObjectMerchant, "A merchant was created from a boarded application."},
	{MerchantSuspended, ObjectMerchant, "An admin suspended the merchant's payments and terminals."},
	{MerchantResumed, ObjectMerchant, "An admin allowed the merchant's payments and terminals again."},
	{PaymentApproved, ObjectPayment, "The processor approved a payment, wholly or in part."},
	{PaymentDeclined, ObjectPayment, "The processor declined or refused a payment."},
	{PaymentVoided, ObjectPayment, "A payment was voided."},
	{PaymentRefunded, ObjectPayment, "A refund was approved (the object is the refund; originalId names the payment)."},
	{PaymentOutcomeResolved, ObjectPayment, "A payment whose outcome was unknown got its final status."},
	{TerminalTransactionFinished, ObjectTerminalTransaction, "A transaction launched on a card terminal finished (approved, declined, cancelled, timed out…)."},
}

// Known reports whether t is an event type partners can subscribe to.
func Known(t EventType) bool {
	return slices.ContainsFunc(Catalogue, func(i EventInfo) bool { return i.Type == t })
}

// ApplicationEventOf is the event of an upstream state newly shown on an application,
// or "" when partners are not told of it (the processor's own first steps).
func ApplicationEventOf(upstreamStatus string) EventType {
	switch upstreamStatus {
	case "inProgress":
		return ApplicationOpened
	case "processing":
		return ApplicationAccepted
	case "processingPending":
		return ApplicationNeedsInformation
	case "boarded", "installed", "active":
		return ApplicationBoarded
	case "declined":
		return ApplicationDeclined
	case "withdrawn":
		return ApplicationWithdrawn
	}
	return ""
}
