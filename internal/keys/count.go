package keys

import (
	"context"
	"fmt"
)

// Tally is what one place of the registry holds, by the key it is sealed under. For
// files, "" counts those whose key is not recorded yet.
type Tally struct {
	Place string
	ByKey map[string]int
}

// Count counts the registry's sealed values by key: every sealed value of every column
// (each one inside a JSON document), every blind index, every file. It reads whole
// tables: it is for `portal keys status` and the start-up check's rare full look, not for
// a request.
func (s *Service) Count(ctx context.Context) ([]Tally, error) {
	if _, err := s.tables(ctx); err != nil {
		return nil, err
	}
	var out []Tally
	for _, c := range s.columns {
		byKey, err := s.countColumn(ctx, c)
		if err != nil {
			return nil, err
		}
		out = append(out, Tally{Place: c.Place(), ByKey: byKey})
	}
	for _, f := range s.files {
		byKey, err := f.CountByKey(ctx)
		if err != nil {
			return nil, fmt.Errorf("keys: counting %s: %w", f.Place(), err)
		}
		out = append(out, Tally{Place: f.Place(), ByKey: byKey})
	}
	return out, nil
}

func (s *Service) countColumn(ctx context.Context, c Column) (map[string]int, error) {
	col := ident(c.Name)
	var query string
	switch c.Form {
	case FormDocument:
		query = `SELECT ` + keyOf(c) + `, count(*) FROM ` + ident(c.Table) + ` AS t
			CROSS JOIN LATERAL jsonb_path_query(t.` + col + `::jsonb, '` + jsonSealed + `') AS v GROUP BY 1`
	case FormIndex:
		query = `SELECT ` + keyOf(c) + `, count(*) FROM ` + ident(c.Table) + ` WHERE ` + holdsSealed(c) + ` GROUP BY 1`
	default:
		query = `SELECT ` + keyOf(c) + `, count(*) FROM ` + ident(c.Table) + ` WHERE ` + holdsSealed(c) + ` GROUP BY 1`
	}
	rows, err := s.pool.Query(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("keys: counting %s: %w", c.Place(), err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var key string
		var n int
		if err := rows.Scan(&key, &n); err != nil {
			return nil, err
		}
		out[key] = n
	}
	return out, rows.Err()
}

// Totals adds the tallies up by key.
func Totals(tallies []Tally) map[string]int {
	out := map[string]int{}
	for _, t := range tallies {
		for k, n := range t.ByKey {
			out[k] += n
		}
	}
	return out
}

// Holders lists the places holding values under keyID, with how many each holds.
func Holders(tallies []Tally, keyID string) []Tally {
	var out []Tally
	for _, t := range tallies {
		if n := t.ByKey[keyID]; n > 0 {
			out = append(out, Tally{Place: t.Place, ByKey: map[string]int{keyID: n}})
		}
	}
	return out
}
