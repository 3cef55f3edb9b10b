package payments

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/database"
)

// AddEvent appends an entry to a transaction's timeline (At defaults to now).
func (l *Ledger) AddEvent(ctx context.Context, q database.Querier, e Event) error {
	if e.At.IsZero() {
		e.At = l.now().UTC()
	}
	details, err := jsonMap(e.Details)
	if err != nil {
		return err
	}
	_, err = l.on(q).Exec(ctx, `INSERT INTO ledger_events (transaction_id, kind, actor_id, related_id, message, details, at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, e.TransactionID, string(e.Kind), e.ActorID, e.RelatedID, e.Message, details, e.At)
	if err != nil {
		return fmt.Errorf("add %s event: %w", e.Kind, err)
	}
	return nil
}

// Timeline returns the entries of a transaction and of its operations and
// refunds, oldest first, with who acted.
func (l *Ledger) Timeline(ctx context.Context, q database.Querier, id uuid.UUID) ([]Event, error) {
	rows, err := l.on(q).Query(ctx, `SELECT e.id, e.transaction_id, e.kind, e.actor_id,
			COALESCE((SELECT COALESCE(NULLIF(u.name, ''), u.email) FROM users u WHERE u.id = e.actor_id), ''),
			e.related_id, e.message, e.details, e.at
		FROM ledger_events e
		WHERE e.transaction_id = $1 OR e.transaction_id IN (SELECT id FROM ledger_transactions WHERE parent_id = $1)
		ORDER BY e.at, e.id`, id)
	if err != nil {
		return nil, fmt.Errorf("load timeline: %w", err)
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var e Event
		var details []byte
		if err := rows.Scan(&e.ID, &e.TransactionID, &e.Kind, &e.ActorID, &e.ActorName, &e.RelatedID, &e.Message, &details, &e.At); err != nil {
			return nil, fmt.Errorf("load timeline: %w", err)
		}
		if len(details) > 0 {
			_ = json.Unmarshal(details, &e.Details)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
