// Package applications is the aggregate of a merchant application: the one store that
// reads and writes the applications row (Store, in pgx, with one transaction type: the
// pgx.Tx of InTx, which the rooms also hand to audit.Record, River and the outbox), the
// access rules (Visible, Editable, LockEditable, CheckEditable), the sealer that
// encrypts the draft and the submitted snapshot, and the statuses with their labels.
//
// The rooms of the workflow (workspace, dashboard, submission, handoff, documents) use
// it; it imports none of them.
package applications
