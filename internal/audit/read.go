package audit

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/models"
)

// row is an entry as the history reads it, with the name of who acted.
type row struct {
	Action    string
	Fields    []string
	Details   models.JSON
	CreatedAt time.Time
	ActorName string
}

// History returns the newest limit entries of a subject's trail as people read them,
// newest first (see Entries).
func History(ctx context.Context, q database.Querier, s Subject, limit int) ([]HistoryEntry, error) {
	rows, err := q.Query(ctx, `SELECT e.action, e.fields, e.details, e.created_at,
			COALESCE('API key “' || k.name || '”', NULLIF(u.name, ''), u.email, '') AS actor_name
		FROM audit_events e LEFT JOIN users u ON u.id = e.actor_id LEFT JOIN api_keys k ON k.id = e.actor_key_id
		WHERE e.subject_kind = $1 AND e.subject_id = $2
		ORDER BY e.created_at DESC, e.id DESC LIMIT $3`, string(s.Kind), s.ID, limit)
	if err != nil {
		return nil, fmt.Errorf("load %s events: %w", s.Kind, err)
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[row])
	if err != nil {
		return nil, fmt.Errorf("load %s events: %w", s.Kind, err)
	}
	return historyEntries(list), nil
}
