package imports

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/models"
)

// existing is an application a row may duplicate.
type existing struct {
	ID        uuid.UUID
	OwnerID   uuid.UUID
	TINIndex  *string
	NameKey   string
	Name      string
	Status    models.ApplicationStatus
	CreatedAt time.Time
}

// nameKeySQL is the legal name as duplicates compare it, as the index
// applications_legal_name_key_idx computes it (and nameKey in Go).
const nameKeySQL = `lower(btrim(regexp_replace(a.legal_name, '\s+', ' ', 'g')))`

const existingColumns = `a.id, a.owner_id, a.tin_index, ` + nameKeySQL + ` AS name_key,
	COALESCE(NULLIF(a.dba, ''), a.legal_name) AS name, a.status, a.created_at`

// Duplicates are by TIN (through the keyed blind index; nothing is decrypted) or by
// legal name when one of the two has no TIN: two businesses with one name and different
// TINs are different merchants. Only applications the importing user may see are
// searched (scope: nil for an admin, else the user), so a rep learns nothing of others'.
func findExisting(ctx context.Context, q database.Querier, sealer *applications.Sealer, scope *uuid.UUID, cands []candidate) (map[int]*existing, error) {
	var indexes, names []string
	rowIndexes := make(map[int]map[string]bool, len(cands))
	for _, c := range cands {
		if c.TIN != "" {
			idx := sealer.TINIndexes(c.TIN)
			indexes = append(indexes, idx...)
			set := make(map[string]bool, len(idx))
			for _, i := range idx {
				set[i] = true
			}
			rowIndexes[c.Number] = set
		}
		if c.NameKey != "" {
			names = append(names, c.NameKey)
		}
	}
	out := map[int]*existing{}
	if len(indexes) == 0 && len(names) == 0 {
		return out, nil
	}
	// One index lookup per key (LATERAL): the planner cannot fall back to reading every
	// application, whatever it guesses of a fresh table's statistics.
	rows, err := q.Query(ctx, `SELECT * FROM (
			SELECT m.* FROM unnest($1::text[]) AS k(idx), LATERAL (SELECT `+existingColumns+` FROM applications a
				WHERE a.tin_index = k.idx AND a.deleted_at IS NULL AND ($3::uuid IS NULL OR a.owner_id = $3)) m
			UNION
			SELECT m.* FROM unnest($2::text[]) AS n(key), LATERAL (SELECT `+existingColumns+` FROM applications a
				WHERE `+nameKeySQL+` = n.key AND a.legal_name <> '' AND a.deleted_at IS NULL AND ($3::uuid IS NULL OR a.owner_id = $3)) m
		) found ORDER BY created_at, id`, indexes, names, scope)
	if err != nil {
		return nil, fmt.Errorf("find existing merchants: %w", err)
	}
	found, err := pgx.CollectRows(rows, pgx.RowToStructByPos[existing])
	if err != nil {
		return nil, fmt.Errorf("find existing merchants: %w", err)
	}
	for _, c := range cands {
		// A match by TIN wins over one by name.
		for pass := 0; pass < 2 && out[c.Number] == nil; pass++ {
			for i := range found {
				e := &found[i]
				if (pass == 0 && byTIN(c, e, rowIndexes[c.Number])) || (pass == 1 && byName(c, e)) {
					out[c.Number] = e
					break
				}
			}
		}
	}
	return out, nil
}

func byTIN(c candidate, e *existing, indexes map[string]bool) bool {
	return c.TIN != "" && e.TINIndex != nil && indexes[*e.TINIndex]
}

func byName(c candidate, e *existing) bool {
	noTIN := e.TINIndex == nil || *e.TINIndex == ""
	return c.NameKey != "" && e.NameKey == c.NameKey && (c.TIN == "" || noTIN)
}
