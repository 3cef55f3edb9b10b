// Package reminders sends the reminders tied to the processor's state, as an admin
// configures them (Admin → Reminders): a merchant who has not started at the processor
// after N days, one who started but has not accepted, a rep whose application the
// processor put on hold for more information (processingPending, at once), and each
// rep's weekly digest of drafts left untouched.
//
// A periodic River job (RunWorker, every minute) finds what is due (store.go) and sends
// each reminder in its own transaction with its audit entry and its outbox message; a
// unique row per (application, kind, state, number) in reminders_sent makes it safe to
// run twice or on two instances at once. A reminder is checked against the
// application's current state inside that transaction, under a share lock of the row,
// so none goes out once the state has moved on. Reps see what was sent on the
// application's page and may pause its reminders.
package reminders
