// Package keys knows where the portal keeps values sealed with the key ring (fieldcrypt),
// and manages them key by key: what is sealed under which key (`portal keys status`),
// re-sealing everything under the active key while the portal serves (`portal keys
// rotate`), reading every value back (`portal keys verify`), and the start-up check that
// refuses to run without a key something is still sealed under.
//
// It reads one registry: the columns the rooms declare (each room's SealedColumns, listed
// once in the wiring) and the files (documents). A column holding ciphertext that is not
// in the registry is found by FindSealed, which a test runs over every column of the
// schema.
package keys

import (
	"context"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/fieldcrypt"
)

// Form is how a column holds sealed values.
type Form int

// The forms of a sealed column.
const (
	// FormSealed: the column holds one sealed value ("v1.<key id>.<data>"), or '' or NULL.
	FormSealed Form = iota + 1
	// FormDocument: the column holds a JSON document with sealed values inside it.
	FormDocument
	// FormIndex: the column holds a blind index ("<key id>:<hmac>") computed from another
	// column of the row, or '' or NULL.
	FormIndex
)

// Key is a row's primary key, each part as Postgres writes it as text, in the order of
// Column.Key.
type Key []string

// UUID reads part i of the key as a UUID (uuid.Nil if it is not one, which then fails to
// open: the AAD names another place).
func (k Key) UUID(i int) uuid.UUID {
	if i >= len(k) {
		return uuid.Nil
	}
	id, err := uuid.Parse(k[i])
	if err != nil {
		return uuid.Nil
	}
	return id
}

// Column is one column of a table where the portal keeps sealed values. Rooms declare
// theirs with SealedColumn, DocumentColumn and IndexColumn.
type Column struct {
	Table string
	Name  string
	// Key names the table's primary key columns.
	Key  []string
	Form Form
	// AAD names where a FormSealed value lives, as the room sealed it.
	AAD func(Key) string
	// Open returns the plaintext of a FormDocument value (for verification), and Reseal
	// the document with every sealed value in it sealed again under the ring's active key.
	Open, Reseal func(ring *fieldcrypt.KeyRing, key Key, value string) (string, error)
	// From is the column a FormIndex is computed from; Compute computes the index under
	// the ring's active key from that column's value.
	From    string
	Compute func(ring *fieldcrypt.KeyRing, key Key, from string) (string, error)
}

// Place names the column as status and errors show it: "table.column".
func (c Column) Place() string { return c.Table + "." + c.Name }

// SealedColumn declares a column holding one sealed value per row, bound to aad.
func SealedColumn(table, name string, key []string, aad func(Key) string) Column {
	return Column{Table: table, Name: name, Key: key, Form: FormSealed, AAD: aad}
}

// DocumentColumn declares a JSON column with sealed values inside it, which the room opens
// and re-seals as a whole (it knows where each value lives).
func DocumentColumn(table, name string, key []string, open, reseal func(ring *fieldcrypt.KeyRing, key Key, value string) (string, error)) Column {
	return Column{Table: table, Name: name, Key: key, Form: FormDocument, Open: open, Reseal: reseal}
}

// IndexColumn declares a blind index column computed from the column from.
func IndexColumn(table, name string, key []string, from string, compute func(ring *fieldcrypt.KeyRing, key Key, from string) (string, error)) Column {
	return Column{Table: table, Name: name, Key: key, Form: FormIndex, From: from, Compute: compute}
}

// Files are sealed values kept outside the database's columns (documents in their store),
// whose key the database records.
type Files interface {
	// Place names them ("documents").
	Place() string
	// CountByKey counts them by the key they are sealed under; "" counts those whose key
	// is not recorded yet.
	CountByKey(ctx context.Context) (map[string]int, error)
	// Rotate seals every one not under the ring's active key again, resumably, telling
	// progress how far it is; it returns how many it rewrote.
	Rotate(ctx context.Context, progress func(done, total int)) (int, error)
	// Verify reads every one back and checks it is what was stored; it returns how many
	// it read.
	Verify(ctx context.Context) (int, error)
}
