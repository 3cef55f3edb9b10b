package dashboard

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/payportal/portal/internal/states"
)

// Store runs the dashboard's list query: a read of the applications table built for
// speed (see BENCHMARKS.md). It never writes; the applications store does.
type Store struct{ db *gorm.DB }

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

	var filters sqlParts
	q.filters(&filters)
	total, err := s.countUpTo(ctx, filters, countCap)
	if err != nil {
		return nil, err
	}
	page := &ListPage{Total: min(total, countCap), Capped: total > countCap}
	filterFirst := total <= countCap
	if !filterFirst && q.rangeAgainstOrder(order) {
		// A date range on the other date than the order's: the planner expects matches spread
		// evenly along the order's index, but the two dates move together, so the matches of
		// an old range sit at the far end of it. Sort the matches instead while they are few.
		more, err := s.countUpTo(ctx, filters, filterFirstCap)
		if err != nil {
			return nil, err
		}
		filterFirst = more <= filterFirstCap
	}

	where := filters.clone()
	cursor := q.After
	if backwards {
		cursor = q.Before
	}
	if cursor != uuid.Nil {
		keyset(&where, order, cursor)
	}
	rows, err := s.pageRows(ctx, where, order, q.Limit+1, filterFirst)
	if err != nil {
		return nil, err
	}
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
// rather than found along the order's index (see List).
const filterFirstCap = 20_000

// pageRows reads one page of rows. It is a deferred join: the inner query finds the ids of
// the page, which the indexes (see the migration application_list) answer without reading the
// wide rows; the outer one fetches just those rows.
//
// The inner query normally reads the order's index until it has a page of matches. With
// filterFirst it instead collects every match (OFFSET 0 keeps the planner from pushing the
// order into the scan) and sorts them: best when the matches are few, or far along the index.
func (s *Store) pageRows(ctx context.Context, where sqlParts, order []sortCol, limit int, filterFirst bool) ([]ListRow, error) {
	inner := `SELECT a.id FROM applications a WHERE ` + where.sql() + ` ORDER BY ` + orderBy(order, "a") + ` LIMIT ?`
	if filterFirst {
		inner = `SELECT f.id FROM (SELECT a.id, a.updated_at, a.created_at, a.status, a.sort_name FROM applications a WHERE ` +
			where.sql() + ` OFFSET 0) AS f ORDER BY ` + orderBy(order, "f") + ` LIMIT ?`
	}
	sql := `SELECT a.id, a.dba, a.legal_name, a.contact_name, a.contact_email, a.status, a.owner_id,
		COALESCE(NULLIF(u.name, ''), u.email) AS owner_name, a.created_at, a.updated_at, a.deleted_at,
		a.upstream_status, a.opened_at
		FROM (` + inner + `) AS page
		JOIN applications a ON a.id = page.id
		JOIN users u ON u.id = a.owner_id
		ORDER BY ` + orderBy(order, "a")
	var rows []ListRow
	if err := s.db.WithContext(ctx).Raw(sql, append(where.args, limit)...).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("list applications: %w", err)
	}
	return rows, nil
}

// countUpTo counts the matching applications, stopping after limit+1.
func (s *Store) countUpTo(ctx context.Context, filters sqlParts, limit int) (int, error) {
	var n int64
	sql := `SELECT count(*) FROM (SELECT 1 FROM applications a WHERE ` + filters.sql() + ` LIMIT ?) AS matching`
	if err := s.db.WithContext(ctx).Raw(sql, append(filters.args, limit+1)...).Scan(&n).Error; err != nil {
		return 0, fmt.Errorf("count applications: %w", err)
	}
	return int(n), nil
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
		// search_text is already lower case; the trigram index serves LIKE '%...%'.
		w.add(`a.search_text LIKE ?`, "%"+escapeLike(strings.ToLower(term))+"%")
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
		w.add("a.status IN ?", f.Portal)
	}
	switch {
	case len(f.Upstream) > 0 && f.UpstreamOrNone:
		w.add("(a.upstream_status IN ? OR a.upstream_status IS NULL)", f.Upstream)
	case len(f.Upstream) > 0:
		w.add("a.upstream_status IN ?", f.Upstream)
	}
	if f.NotDecided {
		w.add("(a.upstream_status IS NULL OR a.upstream_status NOT IN ?)", f.NotDecidedStates)
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

// escapeLike makes user input match literally in a LIKE pattern.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
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

func (p *sqlParts) clone() sqlParts {
	return sqlParts{conds: slices.Clone(p.conds), args: slices.Clone(p.args)}
}

func (p *sqlParts) sql() string { return strings.Join(p.conds, " AND ") }
