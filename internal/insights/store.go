package insights

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/database"
)

// Query selects the applications of a report: created in [From, To), of one owner and
// one pricing model when set. Deleted applications are left out.
type Query struct {
	From, To time.Time
	Owner    *uuid.UUID
	Pricing  *uuid.UUID
}

// stepAt is the SQL of the moment an application reached a step: the first audit
// entry that marks it. The processor's states are dated by the processor (the
// webhook's created), since a webhook may arrive late.
func stepAt(s Step) string {
	switch s {
	case StepCreated:
		return `COALESCE(min(e.created_at) FILTER (WHERE e.action = 'created'), a.created_at)`
	case StepSubmitted:
		return `min(e.created_at) FILTER (WHERE e.action = 'submitted')`
	case StepLinked:
		return `min(e.created_at) FILTER (WHERE e.action = 'linked')`
	}
	return `min(COALESCE((e.details->>'created')::timestamptz, e.created_at)) FILTER (WHERE e.action = 'upstream_status' AND e.details->>'status' IN ('` +
		strings.Join(s.upstreamStates(), "', '") + `'))`
}

// journeys reads the journeys of the applications q selects.
func journeys(ctx context.Context, db database.Querier, q Query) ([]Journey, error) {
	cols := ""
	for s := range stepCount {
		cols += ", " + stepAt(s)
	}
	rows, err := db.Query(ctx, `SELECT a.id, COALESCE(NULLIF(a.dba, ''), NULLIF(a.legal_name, ''), 'Untitled draft'),
			a.owner_id, COALESCE(NULLIF(u.name, ''), u.email), a.pricing_model_id, COALESCE(p.name, '')`+cols+`
		FROM applications a
		JOIN users u ON u.id = a.owner_id
		LEFT JOIN pricing_models p ON p.id = a.pricing_model_id
		LEFT JOIN audit_events e ON e.subject_kind = 'application' AND e.subject_id = a.id
			AND e.action IN ('created', 'submitted', 'linked', 'upstream_status')
		WHERE a.deleted_at IS NULL AND a.created_at >= $1 AND a.created_at < $2
		  AND ($3::uuid IS NULL OR a.owner_id = $3) AND ($4::uuid IS NULL OR a.pricing_model_id = $4)
		GROUP BY a.id, u.name, u.email, p.name
		ORDER BY a.created_at, a.id`, q.From, q.To, q.Owner, q.Pricing)
	if err != nil {
		return nil, fmt.Errorf("read the funnel: %w", err)
	}
	defer rows.Close()
	var out []Journey
	for rows.Next() {
		var j Journey
		dest := []any{&j.ID, &j.Name, &j.OwnerID, &j.OwnerName, &j.PricingID, &j.PricingName}
		for s := range stepCount {
			dest = append(dest, &j.At[s])
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("read the funnel: %w", err)
		}
		out = append(out, j)
	}
	return out, rows.Err()
}
