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
	keys := searchKeysOf(sealer, cands)
	if len(keys.indexes) == 0 && len(keys.names) == 0 {
		return map[int]*existing{}, nil
	}
	found, err := queryExisting(ctx, q, keys, scope)
	if err != nil {
		return nil, fmt.Errorf("find existing merchants: %w", err)
	}
	out := map[int]*existing{}
	for _, c := range cands {
		// A match by TIN wins over one by name.
		e := firstExisting(found, func(e *existing) bool { return byTIN(c, e, keys.rowIndexes[c.Number]) })
		if e == nil {
			e = firstExisting(found, func(e *existing) bool { return byName(c, e) })
		}
		if e != nil {
			out[c.Number] = e
		}
	}
	return out, nil
}

// searchKeys are what the candidates are searched by: the TINs' blind indexes
// (every key of the ring's), with each row's set, and the legal names' keys.
type searchKeys struct {
	indexes, names []string
	rowIndexes     map[int]map[string]bool
}

func searchKeysOf(sealer *applications.Sealer, cands []candidate) searchKeys {
	k := searchKeys{rowIndexes: make(map[int]map[string]bool, len(cands))}
	for _, c := range cands {
		if c.TIN != "" {
			idx := sealer.TINIndexes(c.TIN)
			k.indexes = append(k.indexes, idx...)
			set := make(map[string]bool, len(idx))
			for _, i := range idx {
				set[i] = true
			}
			k.rowIndexes[c.Number] = set
		}
		if c.NameKey != "" {
			k.names = append(k.names, c.NameKey)
		}
	}
	return k
}

// queryExisting finds the applications within scope that have one of the keys,
// oldest first. One index lookup per key (LATERAL): the planner cannot fall back to
// reading every application, whatever it guesses of a fresh table's statistics.
func queryExisting(ctx context.Context, q database.Querier, keys searchKeys, scope *uuid.UUID) ([]existing, error) {
	rows, err := q.Query(ctx, `SELECT * FROM (
			SELECT m.* FROM unnest($1::text[]) AS k(idx), LATERAL (SELECT `+existingColumns+` FROM applications a
				WHERE a.tin_index = k.idx AND a.deleted_at IS NULL AND ($3::uuid IS NULL OR a.owner_id = $3)) m
			UNION
			SELECT m.* FROM unnest($2::text[]) AS n(key), LATERAL (SELECT `+existingColumns+` FROM applications a
				WHERE `+nameKeySQL+` = n.key AND a.legal_name <> '' AND a.deleted_at IS NULL AND ($3::uuid IS NULL OR a.owner_id = $3)) m
		) found ORDER BY created_at, id`, keys.indexes, keys.names, scope)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowToStructByPos[existing])
}

// firstExisting is the first of found that matches, or nil.
func firstExisting(found []existing, matches func(e *existing) bool) *existing {
	for i := range found {
		if matches(&found[i]) {
			return &found[i]
		}
	}
	return nil
}

func byTIN(c candidate, e *existing, indexes map[string]bool) bool {
	return c.TIN != "" && e.TINIndex != nil && indexes[*e.TINIndex]
}

func byName(c candidate, e *existing) bool {
	noTIN := e.TINIndex == nil || *e.TINIndex == ""
	return c.NameKey != "" && e.NameKey == c.NameKey && (c.TIN == "" || noTIN)
}
