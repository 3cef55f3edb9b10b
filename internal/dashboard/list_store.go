package dashboard

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payportal/portal/internal/states"
)

// Store runs the dashboard's list query: a read of the applications table built for
// speed (see BENCHMARKS.md). It never writes; the applications store does.
type Store struct{ pool *pgxpool.Pool }

// List runs the dashboard query: a capped count, then one keyset page in the chosen order.
func (s *Store) List(ctx context.Context, q ListQuery) (*ListPage, error) {
	if q.Limit <= 0 {
		q.Limit = DefaultPageSize
	}
	order, ok := sortOrders[q.Sort]
	if !ok {
		order = sortOrders[SortUpdated]
	}
	backwards := q.Before != uuid.Nil
	order = slices.Clone(order)
	for i := range order {
		// Reverse flips the order; paging backwards reads it the other way and turns the rows
		// round afterwards.
		order[i].desc = order[i].desc != q.Reverse != backwards
	}

	var filters, after sqlParts
	q.filters(&filters)
	cursor := q.After
	if backwards {
		cursor = q.Before
	}
	if cursor != uuid.Nil {
		keyset(&after, order, cursor)
	}
	where := filters.and(after)
	var (
		total int
		rows  []ListRow
		err   error
	)
	if q.unfiltered() {
		total, rows, err = s.countAndWalk(ctx, filters, where, order, q.Limit+1)
	} else {
		total, rows, err = s.countThenPage(ctx, q, filters, after, order)
	}
	if err != nil {
		return nil, err
	}
	page := &ListPage{Total: min(total, countCap), Capped: total > countCap}
	more := len(rows) > q.Limit
	if more {
		rows = rows[:q.Limit]
	}
	if backwards {
		slices.Reverse(rows)
	}
	page.Rows = rows
	if len(rows) > 0 {
		first, last := rows[0].ID, rows[len(rows)-1].ID
		if backwards {
			page.Next = last
			if more {
				page.Prev = first
			}
		} else {
			if more {
				page.Next = last
			}
			if q.After != uuid.Nil {
				page.Prev = first
			}
		}
	}
	return page, nil
}

// filterFirstCap is how many matches a date range may have and still be sorted in memory
// rather than found along the order's index (see countThenPage).
const filterFirstCap = 20_000

// countThenPage counts the matches of a filtered list and reads its page. One statement
// collects the first countCap+1 matches in the list's order, counts them and takes the
// page from them (collectPage): that is the page unless it lies beyond them, on a later
// page of a long list, which is then found along the order's index. A date range against
// the order collects the matches in any order (see rangeAgainstOrder), and its page is
// found apart whenever they pass the cap.
func (s *Store) countThenPage(ctx context.Context, q ListQuery, filters, after sqlParts, order []sortCol) (int, []ListRow, error) {
	mode := q.execMode()
	ordered := !q.rangeAgainstOrder(order)
	total, rows, err := s.collectPage(ctx, mode, filters, after, order, q.Limit+1, ordered)
	if err != nil {
		return 0, nil, err
	}
	if len(rows) == 0 && len(after.conds) > 0 {
		// No match collected comes after the cursor, so no row carried the count.
		if total, err = s.countUpTo(ctx, mode, filters, countCap); err != nil {
			return 0, nil, err
		}
	}
	if total <= countCap || ordered && len(rows) > q.Limit {
		// All the matches were collected, or the first of them in order: those after the
		// cursor begin the list after it, and there are more than a page of them.
		return total, rows, nil
	}
	filterFirst := false
	if !ordered {
		// A date range on the other date than the order's: the planner expects matches spread
		// evenly along the order's index, but the two dates move together, so the matches of
		// an old range sit at the far end of it. Sort the matches instead while they are few.
		more, err := s.countUpTo(ctx, mode, filters, filterFirstCap)
		if err != nil {
			return 0, nil, err
		}
		filterFirst = more <= filterFirstCap
	}
	rows, err = s.pageRows(ctx, mode, filters.and(after), order, q.Limit+1, filterFirst)
	return total, rows, err
}

// pageRows reads one page of rows. It is a deferred join: the inner query finds the ids of
// the page, which the indexes (see the migration application_list) answer without reading the
// wide rows; the outer one fetches just those rows.
//
// The inner query normally reads the order's index until it has a page of matches. With
// filterFirst it instead collects every match (OFFSET 0 keeps the planner from pushing the
// order into the scan) and sorts them: best when the matches are few, or far along the index.
func (s *Store) pageRows(ctx context.Context, mode pgx.QueryExecMode, where sqlParts, order []sortCol, limit int, filterFirst bool) ([]ListRow, error) {
	res, err := s.pool.Query(ctx, pageSQL(where, order, limit, filterFirst), append([]any{mode}, where.args...)...)
	if err != nil {
		return nil, fmt.Errorf("list applications: %w", err)
	}
	rows, err := pgx.CollectRows(res, scanListRow)
	if err != nil {
		return nil, fmt.Errorf("list applications: %w", err)
	}
	return rows, nil
}

// pageSQL is the query of pageRows. The limit is written into it (see limitSQL).
func pageSQL(where sqlParts, order []sortCol, limit int, filterFirst bool) string {
	inner := `SELECT a.id FROM applications a WHERE ` + where.sql() + ` ORDER BY ` + orderBy(order, "a") + limitSQL(limit)
	if filterFirst {
		inner = `SELECT f.id FROM (SELECT a.id, a.updated_at, a.created_at, a.status, a.sort_name FROM applications a WHERE ` +
			where.sql() + ` OFFSET 0) AS f ORDER BY ` + orderBy(order, "f") + limitSQL(limit)
	}
	return numbered(`SELECT a.id, a.dba, a.legal_name, a.contact_name, a.contact_email, a.status, a.owner_id,
		COALESCE(NULLIF(u.name, ''), u.email) AS owner_name, a.created_at, a.updated_at, a.deleted_at,
		a.upstream_status, a.opened_at
		FROM (` + inner + `) AS page
		JOIN applications a ON a.id = page.id
		JOIN users u ON u.id = a.owner_id
		ORDER BY ` + orderBy(order, "a"))
}

// scanListRow reads one row of pageRows.
func scanListRow(row pgx.CollectableRow) (ListRow, error) {
	var r ListRow
	err := row.Scan(&r.ID, &r.DBA, &r.LegalName, &r.ContactName, &r.ContactEmail, &r.Status, &r.OwnerID,
		&r.OwnerName, &r.CreatedAt, &r.UpdatedAt, &r.DeletedAt, &r.UpstreamStatus, &r.OpenedAt)
	return r, err
}

// countUpTo counts the matching applications, stopping after limit+1.
func (s *Store) countUpTo(ctx context.Context, mode pgx.QueryExecMode, filters sqlParts, limit int) (int, error) {
	var n int64
	if err := s.pool.QueryRow(ctx, countSQL(filters, limit), append([]any{mode}, filters.args...)...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count applications: %w", err)
	}
	return int(n), nil
}

// countSQL is the query of countUpTo, counting up to limit+1.
func countSQL(filters sqlParts, limit int) string {
	return numbered(`SELECT count(*) FROM (SELECT 1 FROM applications a WHERE ` + filters.sql() + limitSQL(limit+1) + `) AS matching`)
}

// limitSQL writes a LIMIT into a statement rather than passing it as a parameter. The
// prepared statements of the lists without a search or a date range are then planned once
// per connection (after five runs PostgreSQL settles on the generic plan): with the limit
// a parameter, the generic plan must guess it, costs more than a plan made for the value,
// and PostgreSQL planned every run again, at twice the cost of running it (see
// BENCHMARKS.md). The limits are few (the page size plus one, the caps plus one), so
// the statements are few too.
func limitSQL(limit int) string {
	return " LIMIT " + strconv.Itoa(limit)
}

// rangeAgainstOrder reports whether the query bounds a date that is not the order's first key.
func (q ListQuery) rangeAgainstOrder(order []sortCol) bool {
	if q.From.IsZero() && q.To.IsZero() {
		return false
	}
	column := "%[1]s.updated_at"
	if q.DateField == DateCreated {
		column = "%[1]s.created_at"
	}
	return order[0].expr != column
}

// orderBy renders an ORDER BY list for the table alias.
func orderBy(order []sortCol, alias string) string {
	parts := make([]string, len(order))
	for i, c := range order {
		dir := " ASC"
		if c.desc {
			dir = " DESC"
		}
		parts[i] = fmt.Sprintf(c.expr, alias) + dir
	}
	return strings.Join(parts, ", ")
}

// filters adds the query's conditions.
func (q ListQuery) filters(w *sqlParts) {
	if q.Deleted {
		w.add("a.deleted_at IS NOT NULL")
	} else {
		w.add("a.deleted_at IS NULL")
	}
	if q.OwnerID != uuid.Nil {
		w.add("a.owner_id = ?", q.OwnerID)
	}
	if q.Status != "" {
		w.add("a.status = ?", string(q.Status))
	}
	if f, ok := states.FilterOf(q.Outcome); ok {
		outcomeFilter(w, f)
	}
	if term := strings.TrimSpace(q.Search); term != "" {
		searchCondition(w, term)
	}
	column := "a.updated_at"
	if q.DateField == DateCreated {
		column = "a.created_at"
	}
	if !q.From.IsZero() {
		w.add(column+" >= ?", q.From)
	}
	if !q.To.IsZero() {
		w.add(column+" < ?", q.To.AddDate(0, 0, 1))
	}
}

// outcomeFilter adds the conditions of an outcome of the state table.
func outcomeFilter(w *sqlParts, f states.Filter) {
	if len(f.Portal) > 0 {
		w.add("a.status = ANY(?)", f.Portal)
	}
	switch {
	case len(f.Upstream) > 0 && f.UpstreamOrNone:
		w.add("(a.upstream_status = ANY(?) OR a.upstream_status IS NULL)", f.Upstream)
	case len(f.Upstream) > 0:
		w.add("a.upstream_status = ANY(?)", f.Upstream)
	}
	if f.NotDecided {
		w.add("(a.upstream_status IS NULL OR a.upstream_status <> ALL(?))", f.NotDecidedStates)
	}
}

// keyset adds "comes after the cursor row in this order". The cursor's sort keys are read by
// scalar subqueries, which PostgreSQL runs once and then uses like constants, so the first
// key also bounds the index scan.
func keyset(w *sqlParts, order []sortCol, cursor uuid.UUID) {
	var ors []string
	var args []any
	for i, c := range order {
		var ands []string
		for _, prev := range order[:i] {
			ands = append(ands, fmt.Sprintf(prev.expr, "a")+" = "+cursorValue(prev))
			args = append(args, cursor)
		}
		ands = append(ands, fmt.Sprintf(c.expr, "a")+comparison(c, false)+cursorValue(c))
		args = append(args, cursor)
		ors = append(ors, "("+strings.Join(ands, " AND ")+")")
	}
	w.add("("+strings.Join(ors, " OR ")+")", args...)
	first := order[0]
	w.add(fmt.Sprintf(first.expr, "a")+comparison(first, true)+cursorValue(first), cursor)
}

func cursorValue(c sortCol) string {
	return "(SELECT " + fmt.Sprintf(c.expr, "c") + " FROM applications c WHERE c.id = ?)"
}

func comparison(c sortCol, orEqual bool) string {
	op := " > "
	if c.desc {
		op = " < "
	}
	if orEqual {
		op = op[:2] + "= "
	}
	return op
}

// numbered turns the ? placeholders of the built SQL into PostgreSQL's $1, $2, ... (the SQL
// is the store's own: no ? stands anywhere else in it).
func numbered(sql string) string {
	var b strings.Builder
	b.Grow(len(sql) + 16)
	n := 0
	for {
		i := strings.IndexByte(sql, '?')
		if i < 0 {
			b.WriteString(sql)
			return b.String()
		}
		n++
		b.WriteString(sql[:i])
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(n))
		sql = sql[i+1:]
	}
}

// sqlParts collects AND-ed conditions and their arguments.
type sqlParts struct {
	conds []string
	args  []any
}

func (p *sqlParts) add(cond string, args ...any) {
	p.conds = append(p.conds, cond)
	p.args = append(p.args, args...)
}

// and returns the conditions of p and then those of o.
func (p *sqlParts) and(o sqlParts) sqlParts {
	return sqlParts{conds: slices.Concat(p.conds, o.conds), args: slices.Concat(p.args, o.args)}
}

func (p *sqlParts) sql() string { return strings.Join(p.conds, " AND ") }
