package audit

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
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
// newest first. An attempt at the processor (a payment, a terminal launch) is worded as
// asked, since History is not told its outcome: a trail that holds attempts is read with
// HistoryWithOutcomes.
func History(ctx context.Context, q database.Querier, s Subject, limit int) ([]HistoryEntry, error) {
	return HistoryWithOutcomes(ctx, q, s, limit, nil)
}

// HistoryWithOutcomes is History with what became of each attempt, from outcomes (nil
// for none): "tried to void a sale of $5.00 — the processor refused: already settled".
func HistoryWithOutcomes(ctx context.Context, q database.Querier, s Subject, limit int, outcomes Outcomes) ([]HistoryEntry, error) {
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
	entries := make([]*entry, len(list))
	for i, r := range list {
		entries[i] = newEntry(r)
	}
	if outcomes != nil {
		if err := addOutcomes(ctx, entries, outcomes); err != nil {
			return nil, fmt.Errorf("load %s events' outcomes: %w", s.Kind, err)
		}
	}
	return historyEntries(entries), nil
}

// addOutcomes asks outcomes what became of the entries' attempts, by the
// transaction each concerns (a payment's, or a terminal launch's ledger line).
func addOutcomes(ctx context.Context, entries []*entry, outcomes Outcomes) error {
	var ids []uuid.UUID
	for _, e := range entries {
		if id, ok := e.transaction(); ok {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	results, err := outcomes.Outcomes(ctx, ids)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if id, ok := e.transaction(); ok {
			e.result = results[id]
		}
	}
	return nil
}

// transaction is the id of the transaction an attempt concerns.
func (e *entry) transaction() (uuid.UUID, bool) {
	if !e.attempt() {
		return uuid.Nil, false
	}
	raw := e.p.TransactionID
	if raw == "" {
		raw = e.t.LaunchID // a launch's ledger line has the launch's id
	}
	id, err := uuid.Parse(raw)
	return id, err == nil
}
