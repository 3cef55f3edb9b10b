// Package webhooks tells partners' software what happened, by signed HTTPS requests:
// the endpoints admins register for an API key (its scope decides whose news an
// endpoint hears), the outbox of events the rooms write in the transaction of each
// change (Emitter.Emit: the event, a delivery per endpoint and a River job per
// delivery, so an event is never lost nor sent for a change that rolled back), and
// the deliveries: signed per Standard Webhooks 1.0, retried for three days, logged per
// endpoint, refused at connection time when the receiver's address is private.
//
// The rooms know nothing of this package: each declares a narrow interface of what it
// announces (submission.Announcer, handoff.StatusAnnouncer, merchants.Announcer,
// payments.Announcer, terminals.Announcer) and internal/app adapts them to Emit.
package webhooks
