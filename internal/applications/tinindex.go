package applications

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/drafts"
)

// tinIndexPurpose names the blind index of TINs in the key ring's HMAC.
const tinIndexPurpose = "tin"

// NormalizeTIN is the form a TIN is indexed in: its digits ("12-3456789" and
// "123456789" are one TIN), or "" when it holds none.
func NormalizeTIN(tin string) string {
	var b strings.Builder
	for _, r := range tin {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TINIndex is the keyed blind index of the draft's tax id (the TIN, or a sole
// proprietor's SSN used as TIN), under the active key; "" when there is none. Store it
// in Application.TINIndex on every write of the draft.
func (s *Sealer) TINIndex(d drafts.Draft) *string {
	idx := s.ring.BlindIndex(tinIndexPurpose, NormalizeTIN(d.TaxID()))
	return &idx
}

// TINIndexes are the indexes a TIN may be stored under, one per key of the ring, for
// finding duplicates across key rotations.
func (s *Sealer) TINIndexes(tin string) []string {
	return s.ring.BlindIndexes(tinIndexPurpose, NormalizeTIN(tin))
}

// TINIndexNeedsRotation reports whether a stored index was computed under an older key.
func (s *Sealer) TINIndexNeedsRotation(idx string) bool { return s.ring.IndexNeedsRotation(idx) }

// SetTINIndex stores an application's TIN index, computed by the backfill, if the draft is
// still the one it was computed from (version); ErrNoMatch otherwise.
func (s *Store) SetTINIndex(ctx context.Context, q database.Querier, id uuid.UUID, version int, idx string) error {
	return s.update(ctx, q, "set TIN index",
		`UPDATE applications SET tin_index = $3 WHERE id = $1 AND version = $2`, id, version, idx)
}

// WithoutCurrentTINIndex lists up to limit applications (deleted ones too: a restore must
// find them indexed) whose TIN index is missing or was not computed under the active key,
// after the id given (uuid.Nil to start), in id order.
func (s *Store) WithoutCurrentTINIndex(ctx context.Context, q database.Querier, activeKeyID string, after uuid.UUID, limit int) ([]uuid.UUID, error) {
	rows, err := s.On(q).Query(ctx, `SELECT id FROM applications
		WHERE id > $1 AND (tin_index IS NULL OR (tin_index <> '' AND tin_index NOT LIKE $2 || ':%'))
		ORDER BY id LIMIT $3`, after, activeKeyID, limit)
	if err != nil {
		return nil, fmt.Errorf("list applications to index: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil {
		return nil, fmt.Errorf("list applications to index: %w", err)
	}
	return ids, nil
}

// ActiveKeyID is the id of the key that seals and indexes new values.
func (s *Sealer) ActiveKeyID() string { return s.ring.ActiveKeyID() }
