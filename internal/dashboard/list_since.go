package dashboard

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/models"
)

// SinceQuery asks for the applications a user may see that changed since a time, the
// oldest change first: the partner API's list, for programs that keep a copy in step.
type SinceQuery struct {
	// Outcome narrows the list to one outcome of the state table; "" is any.
	Outcome string
	// UpdatedSince keeps the applications changed at or after it; zero is any time.
	UpdatedSince time.Time
	// After continues from a page's Next.
	After *SinceCursor
	Limit int
}

// SinceCursor is where a page of ListSince ended: the last row's change time and id.
// It holds the values, not just the id, so a row changed between two pages neither
// hides nor repeats the rows after it.
type SinceCursor struct {
	UpdatedAt time.Time
	ID        uuid.UUID
}

// SincePage is one page of ListSince; Next is nil on the last page.
type SincePage struct {
	Rows []ListRow
	Next *SinceCursor
}

// ListSince returns one page of the applications u may see (reps their own, never
// deleted ones), by change time, oldest first.
func (s *Service) ListSince(ctx context.Context, u *models.User, q SinceQuery) (*SincePage, error) {
	if q.Limit <= 0 {
		q.Limit = DefaultPageSize
	}
	lq := ListQuery{Outcome: q.Outcome}
	if !u.IsAdmin() {
		lq.OwnerID = u.ID
	}
	var w sqlParts
	lq.filters(&w)
	if !q.UpdatedSince.IsZero() {
		w.add("a.updated_at >= ?", q.UpdatedSince)
	}
	if q.After != nil {
		// The order reads the (updated_at DESC, id) indexes backwards.
		w.add("a.updated_at >= ? AND (a.updated_at > ? OR a.id < ?)", q.After.UpdatedAt, q.After.UpdatedAt, q.After.ID)
	}
	rows, err := s.store.pool.Query(ctx, numbered(`SELECT a.id, a.dba, a.legal_name, a.contact_name, a.contact_email, a.status,
		a.owner_id, COALESCE(NULLIF(u.name, ''), u.email), a.created_at, a.updated_at, a.deleted_at, a.upstream_status, a.opened_at
		FROM applications a JOIN users u ON u.id = a.owner_id
		WHERE `+w.sql()+` ORDER BY a.updated_at ASC, a.id DESC LIMIT ?`), append(w.args, q.Limit+1)...)
	if err != nil {
		return nil, fmt.Errorf("list applications since: %w", err)
	}
	list, err := pgx.CollectRows(rows, scanListRow)
	if err != nil {
		return nil, fmt.Errorf("list applications since: %w", err)
	}
	page := &SincePage{Rows: list}
	if len(list) > q.Limit {
		page.Rows = list[:q.Limit]
		last := page.Rows[q.Limit-1]
		page.Next = &SinceCursor{UpdatedAt: last.UpdatedAt, ID: last.ID}
	}
	return page, nil
}
