package keys

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payportal/portal/internal/fieldcrypt"
)

// Service manages the sealed values of one database under one key ring.
type Service struct {
	pool    *pgxpool.Pool
	ring    *fieldcrypt.KeyRing
	columns []Column
	files   []Files
	now     func() time.Time
	batch   int
}

// Deps is what the service works on: the registry (Columns and Files) and the ring.
type Deps struct {
	Pool    *pgxpool.Pool
	Ring    *fieldcrypt.KeyRing
	Columns []Column
	Files   []Files
	Now     func() time.Time
	// Batch is how many rows a rotation re-seals per transaction; 500 by default.
	Batch int
}

// New returns the service.
func New(d Deps) *Service {
	if d.Batch <= 0 {
		d.Batch = 500
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	return &Service{pool: d.Pool, ring: d.Ring, columns: d.Columns, files: d.Files, now: d.Now, batch: d.Batch}
}

// Ring is the key ring the service seals with.
func (s *Service) Ring() *fieldcrypt.KeyRing { return s.ring }

// Columns are the registry's columns.
func (s *Service) Columns() []Column { return s.columns }

// table is the registry's columns of one table, with the SQL types of the columns a
// rotation reads.
type table struct {
	name    string
	key     []string
	columns []Column
	// from are the columns indexes are computed from that are not sealed columns
	// themselves: read, and compared when writing, all the same.
	from  []string
	types map[string]string
}

// tables groups the registry's columns by table, in registry order, and looks their types
// up, so a column named wrongly in the registry fails here, by name.
func (s *Service) tables(ctx context.Context) ([]*table, error) {
	var out []*table
	byName := map[string]*table{}
	for _, c := range s.columns {
		t := byName[c.Table]
		if t == nil {
			t = &table{name: c.Table, key: c.Key}
			byName[c.Table] = t
			out = append(out, t)
		}
		if strings.Join(t.key, ",") != strings.Join(c.Key, ",") {
			return nil, fmt.Errorf("keys: %s names the key (%s), another column of %s (%s)",
				c.Place(), strings.Join(c.Key, ", "), c.Table, strings.Join(t.key, ", "))
		}
		t.columns = append(t.columns, c)
	}
	for _, t := range out {
		for _, c := range t.columns {
			if c.Form == FormIndex && !t.sealed(c.From) && !slices.Contains(t.from, c.From) {
				t.from = append(t.from, c.From)
			}
		}
		types, err := columnTypes(ctx, s.pool, t.name)
		if err != nil {
			return nil, err
		}
		for _, name := range t.read() {
			if types[name] == "" {
				return nil, fmt.Errorf("keys: the registry names %s.%s, which the database does not have", t.name, name)
			}
		}
		t.types = types
	}
	return out, nil
}

// sealed reports whether name is one of the table's sealed columns.
func (t *table) sealed(name string) bool {
	for _, c := range t.columns {
		if c.Name == name {
			return true
		}
	}
	return false
}

// read lists the columns a rotation reads, in order: the key, the sealed columns, then
// the other columns indexes are computed from.
func (t *table) read() []string {
	out := append([]string(nil), t.key...)
	for _, c := range t.columns {
		out = append(out, c.Name)
	}
	return append(out, t.from...)
}

func columnTypes(ctx context.Context, pool *pgxpool.Pool, tableName string) (map[string]string, error) {
	rows, err := pool.Query(ctx, `SELECT a.attname, format_type(a.atttypid, a.atttypmod)
		FROM pg_attribute a WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped`, tableName)
	if err != nil {
		return nil, fmt.Errorf("keys: reading the columns of %s: %w", tableName, err)
	}
	types := map[string]string{}
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			rows.Close()
			return nil, err
		}
		types[name] = typ
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(types) == 0 {
		return nil, fmt.Errorf("keys: the registry names the table %s, which the database does not have", tableName)
	}
	return types, nil
}

// ident quotes an identifier of the registry for SQL.
func ident(name string) string { return pgx.Identifier{name}.Sanitize() }

// sealedRegexp matches a whole sealed value of fieldcrypt's format (version 1): a key id and
// at least 29 bytes (nonce, one byte, tag) of base64url, so that text which merely starts
// with "v1." (a website, a version number) is never taken for one.
const sealedRegexp = `^v1\.[A-Za-z0-9_-]{1,64}\.[A-Za-z0-9_-]{39,}$`

// jsonSealed selects the sealed strings inside a JSON document (jsonpath; its string
// literal doubles the regular expression's backslashes).
const jsonSealed = `strict $.** ? (@.type() == "string" && @ like_regex "^v1\\.[A-Za-z0-9_-]{1,64}\\.[A-Za-z0-9_-]{39,}$")`

// keyOf is the SQL expression of the key id a column's value (or each value a document
// holds, v) is under.
func keyOf(c Column) string {
	switch c.Form {
	case FormIndex:
		return "split_part(" + ident(c.Name) + ", ':', 1)"
	case FormDocument:
		return "split_part(v #>> '{}', '.', 2)"
	default:
		return "split_part(" + ident(c.Name) + ", '.', 2)"
	}
}

// holdsSealed is the SQL condition of a column holding a value (or a document holding
// values) of its form.
func holdsSealed(c Column) string {
	col := ident(c.Name)
	switch c.Form {
	case FormIndex:
		return col + " <> ''"
	case FormDocument:
		return "jsonb_path_exists(" + col + "::jsonb, '" + jsonSealed + "')"
	default:
		return col + " ~ '" + sealedRegexp + "'"
	}
}

// needsRotation is the SQL condition of a column whose value is (or holds) a value not
// under the key $1.
func needsRotation(c Column) string {
	col := ident(c.Name)
	switch c.Form {
	case FormIndex:
		return "(" + col + " <> '' AND split_part(" + col + ", ':', 1) <> $1::text)"
	case FormDocument:
		return "jsonb_path_exists(" + col + "::jsonb, '" + strings.TrimSuffix(jsonSealed, ")") + ` && !(@ starts with $p))', ` +
			"jsonb_build_object('p', 'v1.' || $1::text || '.'))"
	default:
		return "(" + col + " ~ '" + sealedRegexp + "' AND split_part(" + col + ", '.', 2) <> $1::text)"
	}
}
