package keys

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Progress is how far a rotation is in one place: Done of Total rows (or files) re-sealed
// in the current pass.
type Progress struct {
	Place       string
	Done, Total int
}

// maxPasses bounds the passes over one table: a pass skips the rows the portal changed
// while it read them, and the next pass takes them again.
const maxPasses = 5

// Rotate seals every value of the registry that is not under the ring's active key again
// under it, while the portal serves: table by table in batches of rows, each batch one
// statement that writes a row only if it still holds what was read (a row the portal
// changed meanwhile is taken again by the next pass), so nothing a user writes is lost.
// What it selects is what is not under the active key yet, so a rotation cut short (a
// crash, ^C) resumes where it was when run again. Then the files. It refuses to start,
// as the portal does, when a value is sealed under a key the ring lacks. It returns what
// it re-sealed, per place.
func (s *Service) Rotate(ctx context.Context, progress func(Progress)) ([]Progress, error) {
	if progress == nil {
		progress = func(Progress) {}
	}
	if err := s.Check(ctx); err != nil {
		return nil, err
	}
	tables, err := s.tables(ctx)
	if err != nil {
		return nil, err
	}
	var out []Progress
	for _, t := range tables {
		n, err := s.rotateTable(ctx, t, progress)
		if err != nil {
			return out, err
		}
		out = append(out, Progress{Place: t.name, Done: n, Total: n})
	}
	for _, f := range s.files {
		n, err := f.Rotate(ctx, func(done, total int) { progress(Progress{Place: f.Place(), Done: done, Total: total}) })
		if err != nil {
			return out, fmt.Errorf("keys: re-sealing %s: %w", f.Place(), err)
		}
		out = append(out, Progress{Place: f.Place(), Done: n, Total: n})
	}
	return out, nil
}

// row is one row a rotation read: its key, then its sealed columns' values and the other
// columns indexes are computed from (nil for NULL).
type row struct {
	key    Key
	values []*string
}

func (s *Service) rotateTable(ctx context.Context, t *table, progress func(Progress)) (int, error) {
	active := s.ring.ActiveKeyID()
	done := 0
	for range maxPasses {
		total, err := s.countPending(ctx, t, active)
		if err != nil || total == 0 {
			return done, err
		}
		passDone := 0
		progress(Progress{Place: t.name, Total: total})
		for after := Key(nil); ; {
			rows, last, read, err := s.nextChunk(ctx, t, active, after)
			if err != nil {
				return done + passDone, err
			}
			if len(rows) > 0 {
				n, err := s.resealRows(ctx, t, rows)
				if err != nil {
					return done + passDone, err
				}
				passDone += n
				progress(Progress{Place: t.name, Done: passDone, Total: total})
			}
			if read < s.batch {
				break
			}
			after = last
		}
		done += passDone
	}
	left, err := s.countPending(ctx, t, active)
	if err == nil && left > 0 {
		err = fmt.Errorf("keys: %d rows of %s are still not under key %s after %d passes: is a portal still sealing with another key? "+
			"Every replica must run with %s active before a rotation; then run it again", left, t.name, active, maxPasses, active)
	}
	return done, err
}

// pendingWhere is the condition of a row holding any value not under the key $1.
func pendingWhere(t *table) string {
	conds := make([]string, len(t.columns))
	for i, c := range t.columns {
		conds[i] = needsRotation(c)
	}
	return "(" + strings.Join(conds, " OR ") + ")"
}

func (s *Service) countPending(ctx context.Context, t *table, active string) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM `+ident(t.name)+` WHERE `+pendingWhere(t), active).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("keys: counting what %s holds under older keys: %w", t.name, err)
	}
	return n, nil
}

// nextChunk reads the next batch of rows in key order, after the key given (nil: from
// the start), and returns those holding a value not under active, the chunk's last key and
// how many rows it read. Walking the primary key in chunks (rather than asking for the
// next rows that need re-sealing) keeps each read to one chunk of the index, whatever the
// planner thinks of the condition.
func (s *Service) nextChunk(ctx context.Context, t *table, active string, after Key) ([]row, Key, int, error) {
	read := t.read()
	keyCols := make([]string, len(t.key))
	inner := make([]string, 0, len(read)+1)
	outer := make([]string, 0, len(read)+1)
	for i, name := range read {
		alias := "c" + strconv.Itoa(i)
		inner = append(inner, ident(name)+"::text AS "+alias)
		if i < len(t.key) {
			keyCols[i] = ident(name)
			outer = append(outer, alias)
		} else {
			outer = append(outer, "CASE WHEN pending THEN "+alias+" END")
		}
	}
	inner = append(inner, "coalesce("+pendingWhere(t)+", false) AS pending")
	outer = append(outer, "pending")
	args := []any{active}
	where := ""
	if after != nil {
		params := make([]string, len(t.key))
		for i, k := range t.key {
			args = append(args, after[i])
			params[i] = "$" + strconv.Itoa(len(args)) + "::text::" + t.types[k]
		}
		where = " WHERE (" + strings.Join(keyCols, ", ") + ") > (" + strings.Join(params, ", ") + ")"
	}
	args = append(args, s.batch)
	query := `SELECT ` + strings.Join(outer, ", ") + ` FROM (SELECT ` + strings.Join(inner, ", ") + ` FROM ` + ident(t.name) + where +
		` ORDER BY ` + strings.Join(keyCols, ", ") + ` LIMIT $` + strconv.Itoa(len(args)) + `) AS chunk`
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("keys: reading %s: %w", t.name, err)
	}
	defer rows.Close()
	var out []row
	var last Key
	n := 0
	for rows.Next() {
		dest := make([]*string, len(read))
		var pending bool
		ptrs := make([]any, len(read)+1)
		for i := range dest {
			ptrs[i] = &dest[i]
		}
		ptrs[len(read)] = &pending
		if err := rows.Scan(ptrs...); err != nil {
			return nil, nil, 0, err
		}
		n++
		last = make(Key, len(t.key))
		for i := range last {
			last[i] = *dest[i]
		}
		if pending {
			out = append(out, row{key: last, values: dest[len(t.key):]})
		}
	}
	return out, last, n, rows.Err()
}

// resealRows writes the batch's new values in one statement, each row only if it still
// holds what was read, and returns how many rows it wrote.
func (s *Service) resealRows(ctx context.Context, t *table, rows []row) (int, error) {
	nRead := len(t.columns) + len(t.from)
	keys := make([][]string, len(t.key))
	olds := make([][]*string, nRead)
	news := make([][]*string, len(t.columns))
	for _, r := range rows {
		fresh, err := s.reseal(t, r)
		if err != nil {
			return 0, err
		}
		for i := range t.key {
			keys[i] = append(keys[i], r.key[i])
		}
		for i := range nRead {
			olds[i] = append(olds[i], r.values[i])
		}
		for i := range t.columns {
			news[i] = append(news[i], fresh[i])
		}
	}
	var args []any
	var arrays, names, sets, conds []string
	param := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args)) + "::text[]"
	}
	for i, k := range t.key {
		arrays, names = append(arrays, param(keys[i])), append(names, "k"+strconv.Itoa(i))
		conds = append(conds, "t."+ident(k)+" = v.k"+strconv.Itoa(i)+"::"+t.types[k])
	}
	read := t.read()[len(t.key):]
	for i, name := range read {
		o := "o" + strconv.Itoa(i)
		arrays, names = append(arrays, param(olds[i])), append(names, o)
		conds = append(conds, "t."+ident(name)+" IS NOT DISTINCT FROM v."+o+"::"+t.types[name])
	}
	for i, c := range t.columns {
		n := "n" + strconv.Itoa(i)
		arrays, names = append(arrays, param(news[i])), append(names, n)
		sets = append(sets, ident(c.Name)+" = COALESCE(v."+n+"::"+t.types[c.Name]+", t."+ident(c.Name)+")")
	}
	query := `UPDATE ` + ident(t.name) + ` AS t SET ` + strings.Join(sets, ", ") +
		` FROM unnest(` + strings.Join(arrays, ", ") + `) AS v(` + strings.Join(names, ", ") + `)` +
		` WHERE ` + strings.Join(conds, " AND ")
	tag, err := s.pool.Exec(ctx, query, args...)
	if err != nil {
		return 0, fmt.Errorf("keys: writing %s: %w", t.name, err)
	}
	return int(tag.RowsAffected()), nil
}

// reseal computes a row's new values under the active key: nil where a column keeps its
// value. Errors name the place and the row, never a value.
func (s *Service) reseal(t *table, r row) ([]*string, error) {
	active := s.ring.ActiveKeyID()
	out := make([]*string, len(t.columns))
	for i, c := range t.columns {
		v := r.values[i]
		if v == nil {
			continue
		}
		var fresh string
		var err error
		switch {
		case c.Form == FormSealed && sealedValue.MatchString(*v) && s.ring.NeedsRotation(*v):
			fresh, err = s.ring.Reencrypt(*v, c.AAD(r.key))
		case c.Form == FormDocument && documentNeedsRotation(*v, active):
			fresh, err = c.Reseal(s.ring, r.key, *v)
		case c.Form == FormIndex && *v != "" && s.ring.IndexNeedsRotation(*v):
			fresh, err = c.Compute(s.ring, r.key, t.value(r, c.From))
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("keys: re-sealing %s of the row %s: %w", c.Place(), strings.Join(r.key, ", "), err)
		}
		out[i] = &fresh
	}
	return out, nil
}

// value is a read column's value in a row ("" for NULL).
func (t *table) value(r row, name string) string {
	for i, n := range t.read()[len(t.key):] {
		if n == name && r.values[i] != nil {
			return *r.values[i]
		}
	}
	return ""
}

// sealedValue matches a whole sealed value; sealedInJSON finds the key id of every sealed
// string of a JSON document.
var (
	sealedValue  = regexp.MustCompile(sealedRegexp)
	sealedInJSON = regexp.MustCompile(`"v1\.([A-Za-z0-9_-]{1,64})\.[A-Za-z0-9_-]{39,}"`)
)

// documentNeedsRotation reports whether a JSON document holds a sealed value under a key
// other than active.
func documentNeedsRotation(doc, active string) bool {
	for _, m := range sealedInJSON.FindAllStringSubmatch(doc, -1) {
		if m[1] != active {
			return true
		}
	}
	return false
}
