// Package workspace is the application page and its actions: create, load, save a
// section (with validation, held values and the version check), the checklist and
// history fragments, delete, restore, reassign and reveal. Each action checks who
// asks through the applications store and records itself with audit.Record in the
// same transaction.
package workspace
