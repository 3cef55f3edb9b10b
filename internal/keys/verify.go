package keys

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Verified is what Verify read back.
type Verified struct {
	// Values counts the sealed values opened (a document counts once) and the blind
	// indexes found equal to their recomputation.
	Values int
	// Files counts the files read back and found as stored.
	Files int
	// OlderIndexes counts blind indexes under a key other than the active one, which only
	// a rotation can check.
	OlderIndexes int
}

// maxReported bounds the failures Verify lists.
const maxReported = 20

// Verify opens every sealed value of the registry with the ring and reads every file
// back, as after a restore or a rotation. each, when not nil, receives every opened
// value's place, row and plaintext (tests compare them across a restore). A value that
// does not open is reported by place and row, never by value; Verify goes on and returns
// them together.
func (s *Service) Verify(ctx context.Context, each func(place string, key Key, plain string)) (Verified, error) {
	var out Verified
	var failures []string
	fail := func(msg string) {
		if len(failures) < maxReported {
			failures = append(failures, msg)
		}
	}
	tables, err := s.tables(ctx)
	if err != nil {
		return out, err
	}
	for _, t := range tables {
		for _, c := range t.columns {
			if err := s.verifyColumn(ctx, t, c, &out, each, fail); err != nil {
				return out, err
			}
		}
	}
	for _, f := range s.files {
		n, err := f.Verify(ctx)
		out.Files += n
		if err != nil {
			fail(fmt.Sprintf("%s: %v", f.Place(), err))
		}
	}
	if len(failures) > 0 {
		return out, fmt.Errorf("keys: some sealed values did not read back:\n  %s", strings.Join(failures, "\n  "))
	}
	return out, nil
}

func (s *Service) verifyColumn(ctx context.Context, t *table, c Column, out *Verified, each func(string, Key, string), fail func(string)) error {
	cols := make([]string, 0, len(t.key)+2)
	for _, k := range t.key {
		cols = append(cols, ident(k)+"::text")
	}
	cols = append(cols, ident(c.Name)+"::text")
	if c.Form == FormIndex {
		cols = append(cols, ident(c.From)+"::text")
	}
	rows, err := s.pool.Query(ctx, `SELECT `+strings.Join(cols, ", ")+` FROM `+ident(t.name)+` WHERE `+holdsSealed(c))
	if err != nil {
		return fmt.Errorf("keys: reading %s: %w", c.Place(), err)
	}
	defer rows.Close()
	for rows.Next() {
		dest := make([]*string, len(cols))
		ptrs := make([]any, len(cols))
		for i := range dest {
			ptrs[i] = &dest[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		key := make(Key, len(t.key))
		for i := range key {
			key[i] = *dest[i]
		}
		value := *dest[len(t.key)]
		plain, checked, err := s.open(c, key, value, dest)
		switch {
		case err != nil:
			fail(fmt.Sprintf("%s of the row %s: %v", c.Place(), strings.Join(key, ", "), err))
		case !checked:
			out.OlderIndexes++
		default:
			out.Values++
			if each != nil {
				each(c.Place(), key, plain)
			}
		}
	}
	return rows.Err()
}

// errIndexDiffers means a blind index is not the one its column's value gives.
var errIndexDiffers = errors.New("the blind index differs from the one its value gives")

// open reads one value back: its plaintext, or for an index under the active key the
// index itself once recomputed (checked false for one under another key).
func (s *Service) open(c Column, key Key, value string, dest []*string) (string, bool, error) {
	switch c.Form {
	case FormDocument:
		plain, err := c.Open(s.ring, key, value)
		return plain, true, err
	case FormIndex:
		if s.ring.IndexNeedsRotation(value) {
			return "", false, nil
		}
		from := ""
		if p := dest[len(dest)-1]; p != nil {
			from = *p
		}
		idx, err := c.Compute(s.ring, key, from)
		if err == nil && idx != value {
			err = errIndexDiffers
		}
		return value, true, err
	default:
		plain, err := s.ring.Decrypt(value, c.AAD(key))
		return plain, true, err
	}
}
