package payments

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/database"
)

// Filter selects transactions of one merchant for the ledger's list and its
// export. Zero values select everything. Operations (captures, voids, tip
// adjustments) never appear as lines: they are in their original's timeline.
type Filter struct {
	MerchantID uuid.UUID
	// From and To bound the creation time: From ≤ created < To.
	From, To time.Time
	Kind     Kind
	Source   Source
	// Status is a Status, or "refunded" (wholly) or "partly_refunded".
	Status string
	// MinCents and MaxCents bound the total asked (amount and tip).
	MinCents, MaxCents *int64
	Last4              string
	// Reference matches any part of the reference, ignoring case.
	Reference string
	// Search matches like Reference, or, when it is four digits, the last
	// four digits too (the ledger's search box).
	Search string
	UserID *uuid.UUID
	Batch  string
	// After continues a list from a Page's Next cursor.
	After string
	// Limit is the page size (default 50, at most 500; the export ignores it).
	Limit int
}

// Page is one page of the ledger, newest first.
type Page struct {
	Transactions []*Transaction
	// Next is the cursor of the following page, "" on the last.
	Next string
}

// The filter's extra statuses.
const (
	StatusFilterRefunded       = "refunded"
	StatusFilterPartlyRefunded = "partly_refunded"
)

// where builds the WHERE clause of f.
func (f Filter) where() (string, []any, error) {
	w := &clause{args: []any{f.MerchantID}, conds: []string{"t.merchant_id = $1", "t.kind NOT IN ('capture', 'void', 'tip_adjust')"}}
	f.whatAndWhen(w)
	f.whoAndHowMuch(w)
	if f.After != "" {
		at, id, err := decodeCursor(f.After)
		if err != nil {
			return "", nil, err
		}
		w.args = append(w.args, at, id)
		n := len(w.args)
		w.conds = append(w.conds, fmt.Sprintf("(t.created_at, t.id) < ($%d, $%d)", n-1, n))
	}
	return strings.Join(w.conds, " AND "), w.args, nil
}

// clause collects the conditions of a WHERE clause and their parameters.
type clause struct {
	args  []any
	conds []string
}

// add appends cond, whose ? is the parameter v.
func (w *clause) add(cond string, v any) {
	w.args = append(w.args, v)
	w.conds = append(w.conds, strings.ReplaceAll(cond, "?", "$"+strconv.Itoa(len(w.args))))
}

// whatAndWhen adds the dates, the kind, the way and the status.
func (f Filter) whatAndWhen(w *clause) {
	if !f.From.IsZero() {
		w.add("t.created_at >= ?", f.From)
	}
	if !f.To.IsZero() {
		w.add("t.created_at < ?", f.To)
	}
	if f.Kind != "" {
		w.add("t.kind = ?", string(f.Kind))
	}
	if f.Source != "" {
		w.add("t.source = ?", string(f.Source))
	}
	switch f.Status {
	case "":
	case StatusFilterRefunded:
		w.conds = append(w.conds, "t.refunded_cents > 0 AND t.refunded_cents >= t.approved_cents")
	case StatusFilterPartlyRefunded:
		w.conds = append(w.conds, "t.refunded_cents > 0 AND t.refunded_cents < t.approved_cents")
	default:
		w.add("t.status = ?", f.Status)
	}
}

// whoAndHowMuch adds the amounts, the card, the reference and the search,
// the person and the batch.
func (f Filter) whoAndHowMuch(w *clause) {
	if f.MinCents != nil {
		w.add("t.amount_cents + t.tip_cents >= ?", *f.MinCents)
	}
	if f.MaxCents != nil {
		w.add("t.amount_cents + t.tip_cents <= ?", *f.MaxCents)
	}
	if f.Last4 != "" {
		w.add("t.last4 = ?", f.Last4)
	}
	if f.Reference != "" {
		w.add("t.reference ILIKE ?", "%"+likeEscape(f.Reference)+"%")
	}
	if f.Search != "" {
		w.search(f.Search)
	}
	if f.UserID != nil {
		w.add("t.created_by = ?", *f.UserID)
	}
	if f.Batch != "" {
		w.add("t.batch_number = ?", f.Batch)
		w.conds = append(w.conds, inBatch)
	}
}

// search adds the ledger's search box: any part of the reference, or, when
// it is four digits, the last four digits of the card or account.
func (w *clause) search(q string) {
	w.args = append(w.args, "%"+likeEscape(q)+"%")
	cond := "t.reference ILIKE $" + strconv.Itoa(len(w.args))
	if len(q) == 4 && digitsOnly(q) {
		w.args = append(w.args, q)
		cond = "(" + cond + " OR t.last4 = $" + strconv.Itoa(len(w.args)) + ")"
	}
	w.conds = append(w.conds, cond)
}

// inBatch is what counts in a batch: approved sales, captured
// authorizations and approved refunds; a voided transaction left its batch.
const inBatch = `((t.kind = 'sale' AND t.status IN ('approved', 'partial')) OR (t.kind = 'authorization' AND t.status = 'captured')
	OR (t.kind = 'refund' AND t.status IN ('approved', 'partial')))`

func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// List returns one page of f, newest first.
func (l *Ledger) List(ctx context.Context, q database.Querier, f Filter) (*Page, error) {
	where, args, err := f.where()
	if err != nil {
		return nil, err
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 50
	}
	limit = min(limit, 500)
	list, err := l.many(ctx, q, `SELECT `+txColumns+` FROM ledger_transactions t WHERE `+where+
		fmt.Sprintf(` ORDER BY t.created_at DESC, t.id DESC LIMIT %d`, limit+1), args...)
	if err != nil {
		return nil, err
	}
	page := &Page{Transactions: list}
	if len(list) > limit {
		page.Transactions = list[:limit]
		last := list[limit-1]
		page.Next = encodeCursor(last.CreatedAt, last.ID)
	}
	return page, nil
}

// Each calls fn for every transaction f selects, newest first, reading in
// pages so an export of any size holds one page in memory.
func (l *Ledger) Each(ctx context.Context, q database.Querier, f Filter, fn func(*Transaction) error) error {
	f.Limit = 500
	for {
		page, err := l.List(ctx, q, f)
		if err != nil {
			return err
		}
		for _, t := range page.Transactions {
			if err := fn(t); err != nil {
				return err
			}
		}
		if page.Next == "" {
			return nil
		}
		f.After = page.Next
	}
}

func encodeCursor(at time.Time, id uuid.UUID) string {
	return base64.RawURLEncoding.EncodeToString([]byte(at.UTC().Format(time.RFC3339Nano) + "|" + id.String()))
}

func decodeCursor(s string) (time.Time, uuid.UUID, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return time.Time{}, uuid.Nil, errBadCursor
	}
	at, idText, ok := strings.Cut(string(raw), "|")
	if !ok {
		return time.Time{}, uuid.Nil, errBadCursor
	}
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return time.Time{}, uuid.Nil, errBadCursor
	}
	id, err := uuid.Parse(idText)
	if err != nil {
		return time.Time{}, uuid.Nil, errBadCursor
	}
	return t, id, nil
}

// Batch is one settlement batch of a merchant, as the processor numbered it in
// its answers, with its totals.
type Batch struct {
	Number                   string
	First, Last              time.Time
	SalesCount, RefundsCount int
	SalesCents, RefundsCents int64
}

// NetCents is what the batch pays the merchant before fees.
func (b Batch) NetCents() int64 { return b.SalesCents - b.RefundsCents }

// Batches lists a merchant's batches, newest first (at most limit).
func (l *Ledger) Batches(ctx context.Context, q database.Querier, merchantID uuid.UUID, limit int) ([]Batch, error) {
	rows, err := l.on(q).Query(ctx, `SELECT t.batch_number, MIN(t.created_at), MAX(t.created_at),
			COUNT(*) FILTER (WHERE t.kind <> 'refund'), COUNT(*) FILTER (WHERE t.kind = 'refund'),
			COALESCE(SUM(t.approved_cents) FILTER (WHERE t.kind <> 'refund'), 0),
			COALESCE(SUM(t.approved_cents) FILTER (WHERE t.kind = 'refund'), 0)
		FROM ledger_transactions t
		WHERE t.merchant_id = $1 AND t.batch_number <> '' AND `+inBatch+`
		GROUP BY t.batch_number
		ORDER BY MAX(t.created_at) DESC LIMIT $2`, merchantID, limit)
	if err != nil {
		return nil, fmt.Errorf("load batches: %w", err)
	}
	defer rows.Close()
	var out []Batch
	for rows.Next() {
		var b Batch
		if err := rows.Scan(&b.Number, &b.First, &b.Last, &b.SalesCount, &b.RefundsCount, &b.SalesCents, &b.RefundsCents); err != nil {
			return nil, fmt.Errorf("load batches: %w", err)
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// Person is someone who ran transactions for a merchant, for the list's
// filter.
type Person struct {
	ID   uuid.UUID
	Name string
}

// People lists who ran a merchant's transactions, by name.
func (l *Ledger) People(ctx context.Context, q database.Querier, merchantID uuid.UUID) ([]Person, error) {
	rows, err := l.on(q).Query(ctx, `SELECT u.id, COALESCE(NULLIF(u.name, ''), u.email) AS name FROM users u
		WHERE u.id IN (SELECT DISTINCT created_by FROM ledger_transactions WHERE merchant_id = $1 AND created_by IS NOT NULL)
		ORDER BY name`, merchantID)
	if err != nil {
		return nil, fmt.Errorf("load people: %w", err)
	}
	defer rows.Close()
	var out []Person
	for rows.Next() {
		var p Person
		if err := rows.Scan(&p.ID, &p.Name); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}
