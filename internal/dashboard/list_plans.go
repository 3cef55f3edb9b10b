package dashboard

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// unfiltered reports whether the list keeps every application it may show (live or
// deleted, of one owner or all): its page is then found by walking the order's index,
// where every entry matches, however many there are.
func (q ListQuery) unfiltered() bool {
	return q.Search == "" && q.Status == "" && q.From.IsZero() && q.To.IsZero()
}

// execMode is how the list's statements are sent. A search or a date range is planned for
// its own values every time (an unnamed statement): how many rows match decides the plan
// (a rare word is best found in the search index, a common one along the order's index),
// and a prepared statement would switch to one generic plan for every term after five
// executions. Other lists keep their prepared statements, whose
// plans do not depend on the values and are not planned again.
func (q ListQuery) execMode() pgx.QueryExecMode {
	if q.Search != "" || !q.From.IsZero() || !q.To.IsZero() {
		return pgx.QueryExecModeExec
	}
	return pgx.QueryExecModeCacheStatement
}

// countAndWalk reads the capped count and the page of an unfiltered list in one round
// trip.
func (s *Store) countAndWalk(ctx context.Context, filters, where sqlParts, order []sortCol, limit int) (int, []ListRow, error) {
	b := &pgx.Batch{}
	b.Queue(countSQL(filters, countCap), filters.args...)
	b.Queue(pageSQL(where, order, limit, false), where.args...)
	br := s.pool.SendBatch(ctx, b)
	defer br.Close()
	var n int64
	if err := br.QueryRow().Scan(&n); err != nil {
		return 0, nil, fmt.Errorf("count applications: %w", err)
	}
	res, err := br.Query()
	if err != nil {
		return 0, nil, fmt.Errorf("list applications: %w", err)
	}
	rows, err := pgx.CollectRows(res, scanListRow)
	if err != nil {
		return 0, nil, fmt.Errorf("list applications: %w", err)
	}
	return int(n), rows, br.Close()
}

// warmSQL plans the shapes of the list's statements that touch the most of the catalogue
// and runs a search that matches nothing, count and page. A new database connection
// knows nothing of the applications table, its indexes, the text search and btree_gin
// operators and their support functions, or the statistics of search_words until a
// statement needs them, and loading them cost the first search on each connection
// several times a later one.
var warmSQL = []struct {
	sql  string
	args []any
}{
	{`EXPLAIN SELECT count(*) FROM (SELECT 1 FROM applications a WHERE a.deleted_at IS NULL
		AND a.owner_id = '00000000-0000-0000-0000-000000000000' AND a.status = 'draft'
		AND a.updated_at >= '2000-01-01' AND a.search_words @@ '''warm'':*'::tsquery LIMIT 251) AS matching`, nil},
	{countSQL(warmFilters, countCap), nil},
	{collectSQL(warmFilters, sqlParts{}, sortOrders[SortUpdated], DefaultPageSize+1, true), nil},
	{collectSQL(warmRepFilters, sqlParts{}, sortOrders[SortUpdated], DefaultPageSize+1, true), nil},
	{pageSQL(warmFilters, sortOrders[SortUpdated], DefaultPageSize+1, true), nil},
}

// warmFilters are a search for a word no application holds; warmRepFilters the same
// search by a rep who owns none (a rep's search plans with the owner's columns of the
// indexes, btree_gin's among them).
var (
	warmFilters    = sqlParts{conds: []string{"a.deleted_at IS NULL", `a.search_words @@ '''qzxwarmqzx'':*'::tsquery`}}
	warmRepFilters = sqlParts{conds: []string{"a.deleted_at IS NULL", "a.owner_id = '00000000-0000-0000-0000-000000000000'",
		`a.search_words @@ '''qzxwarmqzx'':*'::tsquery`}}
)

// WarmConnection loads what the dashboard's statements need of the catalogue into a new
// connection, before it serves a request; the database package calls it for every
// connection it opens. A failure is returned for the log and changes nothing else.
func WarmConnection(ctx context.Context, conn *pgx.Conn) error {
	for _, w := range warmSQL {
		if _, err := conn.Exec(ctx, w.sql, w.args...); err != nil {
			return fmt.Errorf("dashboard: warm a connection: %w", err)
		}
	}
	return nil
}

// collectPage collects up to countCap+1 applications matching filters (the first in
// order when ordered, else the first found), counts them and returns the count with the
// page of them after the cursor conditions after, in order. Only the order's columns are
// collected, so that the covering indexes answer without reading the table.
func (s *Store) collectPage(ctx context.Context, mode pgx.QueryExecMode, filters, after sqlParts, order []sortCol, limit int, ordered bool) (int, []ListRow, error) {
	args := append(append([]any{mode}, filters.args...), after.args...)
	res, err := s.pool.Query(ctx, collectSQL(filters, after, order, limit, ordered), args...)
	if err != nil {
		return 0, nil, fmt.Errorf("list applications: %w", err)
	}
	var total int64
	rows, err := pgx.CollectRows(res, func(row pgx.CollectableRow) (ListRow, error) {
		var r ListRow
		err := row.Scan(&total, &r.ID, &r.DBA, &r.LegalName, &r.ContactName, &r.ContactEmail, &r.Status, &r.OwnerID,
			&r.OwnerName, &r.CreatedAt, &r.UpdatedAt, &r.DeletedAt, &r.UpstreamStatus, &r.OpenedAt)
		return r, err
	})
	if err != nil {
		return 0, nil, fmt.Errorf("list applications: %w", err)
	}
	return int(total), rows, nil
}

// collectSQL is the query of collectPage. The count is a window over the collected
// matches, taken before the cursor conditions narrow them to the page; the inner alias is
// "a" throughout, as the conditions and the order name their columns.
func collectSQL(filters, after sqlParts, order []sortCol, limit int, ordered bool) string {
	cols := make([]string, len(order))
	for i, c := range order {
		cols[i] = fmt.Sprintf(c.expr, "a")
	}
	cursor := "true"
	if len(after.conds) > 0 {
		cursor = after.sql()
	}
	collected := ""
	if ordered {
		collected = " ORDER BY " + orderBy(order, "a")
	}
	return numbered(`SELECT page.total, a.id, a.dba, a.legal_name, a.contact_name, a.contact_email, a.status, a.owner_id,
		COALESCE(NULLIF(u.name, ''), u.email) AS owner_name, a.created_at, a.updated_at, a.deleted_at,
		a.upstream_status, a.opened_at
		FROM (SELECT a.id, a.total FROM (SELECT m.*, count(*) OVER () AS total FROM (SELECT ` + strings.Join(cols, ", ") +
		` FROM applications a WHERE ` + filters.sql() + collected + limitSQL(countCap+1) + `) AS m) AS a
			WHERE ` + cursor + ` ORDER BY ` + orderBy(order, "a") + limitSQL(limit) + `) AS page
		JOIN applications a ON a.id = page.id
		JOIN users u ON u.id = a.owner_id
		ORDER BY ` + orderBy(order, "a"))
}
