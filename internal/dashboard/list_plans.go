package dashboard

import (
	"context"
	"fmt"

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
// (a rare word is best found in the search index, a common one along the order's index), and a prepared statement would switch to one generic plan for
// every term after five executions. Other lists keep their prepared statements, whose
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
	b.Queue(countSQL(filters), append(filters.args, countCap+1)...)
	b.Queue(pageSQL(where, order, false), append(where.args, limit)...)
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
	{countSQL(warmFilters), []any{2}},
	{pageSQL(warmFilters, sortOrders[SortUpdated], true), []any{DefaultPageSize + 1}},
}

// warmFilters are a search for a word no application holds.
var warmFilters = sqlParts{conds: []string{"a.deleted_at IS NULL", `a.search_words @@ '''qzxwarmqzx'':*'::tsquery`}}

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
