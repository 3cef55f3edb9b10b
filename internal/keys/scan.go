package keys

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Found is a column of the database holding values of the key ring.
type Found struct {
	Table, Column string
	// Form is FormSealed for sealed values (whole, or inside JSON or arrays), FormIndex for
	// blind indexes.
	Form Form
	// Rows counts the rows holding one.
	Rows int
}

// Place names the column as the registry does.
func (f Found) Place() string { return f.Table + "." + f.Column }

// FindSealed looks through every text, JSON, array and bytea column of every table of the
// schema for values of the key ring: sealed values and blind indexes under keyID, or under
// any key when keyID is "". It reads everything, so it is for tests and audits: the test
// that no column holding ciphertext is missing from the registry, and the check after a
// rotation that nothing is left under the old key.
func FindSealed(ctx context.Context, pool *pgxpool.Pool, keyID string) ([]Found, error) {
	kid := `[A-Za-z0-9_-]{1,64}`
	if keyID != "" {
		if !keyIDPattern(keyID) {
			return nil, fmt.Errorf("keys: %q is not a key id", keyID)
		}
		kid = keyID
	}
	patterns := []struct {
		form Form
		re   string
	}{
		{FormSealed, `v1\.` + kid + `\.[A-Za-z0-9_-]{39,}`},
		{FormIndex, `(^|[^A-Za-z0-9_-])` + kid + `:[A-Za-z0-9_-]{43}($|[^A-Za-z0-9_-])`},
	}
	rows, err := pool.Query(ctx, `SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c
		JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
		WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
		  AND c.data_type IN ('text', 'character varying', 'json', 'jsonb', 'bytea', 'ARRAY')
		ORDER BY 1, 2`)
	if err != nil {
		return nil, fmt.Errorf("keys: listing the schema's columns: %w", err)
	}
	type column struct{ table, name, typ string }
	var columns []column
	for rows.Next() {
		var c column
		if err := rows.Scan(&c.table, &c.name, &c.typ); err != nil {
			rows.Close()
			return nil, err
		}
		columns = append(columns, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var out []Found
	for _, c := range columns {
		text := ident(c.name) + "::text"
		if c.typ == "bytea" {
			text = "encode(" + ident(c.name) + ", 'escape')"
		}
		for _, p := range patterns {
			var n int
			if err := pool.QueryRow(ctx, `SELECT count(*) FROM `+ident(c.table)+` WHERE `+text+` ~ $1`, p.re).Scan(&n); err != nil {
				return nil, fmt.Errorf("keys: scanning %s.%s: %w", c.table, c.name, err)
			}
			if n > 0 {
				out = append(out, Found{Table: c.table, Column: c.name, Form: p.form, Rows: n})
			}
		}
	}
	return out, nil
}

// keyIDPattern reports whether s can be a key id of the ring (fieldcrypt's rule).
func keyIDPattern(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
		default:
			return false
		}
	}
	return true
}
