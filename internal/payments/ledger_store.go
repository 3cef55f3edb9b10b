package payments

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/models"
)

// Ledger is the one record of every merchant's transactions: the API the
// payments room and the terminals room write through, and the reads of the
// ledger's pages. Every method takes the database.Querier (or pgx.Tx) of the
// caller's use case, so the ledger's rows commit with the caller's own rows,
// audit entries and jobs, or not at all.
//
// The life of a transaction: Record (or RecordRefund, which caps it) stores
// the intent before the upstream call; Answer applies the processor's answer
// once, to a row still open, and carries its effect to the original (a void
// voids it, a refund adds to its refunded amount, a capture captures it, a
// tip adjustment changes its tip); AddEvent adds to the timeline.
type Ledger struct {
	pool *pgxpool.Pool
	ring *fieldcrypt.KeyRing
	now  func() time.Time
	// announcer hears of every answer (AnnounceTo); nil: no one.
	announcer Announcer
}

// NewLedger returns the ledger on pool; ring seals billing data.
func NewLedger(pool *pgxpool.Pool, ring *fieldcrypt.KeyRing, now func() time.Time) *Ledger {
	if now == nil {
		now = time.Now
	}
	return &Ledger{pool: pool, ring: ring, now: now}
}

// InTx runs fn in one transaction.
func (l *Ledger) InTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, l.pool, fn)
}

func (l *Ledger) on(q database.Querier) database.Querier {
	if q == nil {
		return l.pool
	}
	return q
}

// txColumns are the columns scanTransaction reads, in its order.
const txColumns = `t.id, t.merchant_id, t.source, t.kind, t.status, t.parent_id, t.customer_id, t.saved_method_id,
	t.amount_cents, t.tip_cents, t.tax_cents, t.approved_cents, t.balance_cents, t.refunded_cents, t.reference,
	t.brand, t.first6, t.last4, t.account_type, t.billing_sealed, t.location_id, t.device_name,
	COALESCE(t.unique_trans_id, ''), t.upstream_type, t.approval_code, t.result_message, t.avs_code, t.cvv_code,
	t.batch_number, t.held_for_review, t.review_reasons, t.details, t.created_by,
	COALESCE((SELECT COALESCE(NULLIF(u.name, ''), u.email) FROM users u WHERE u.id = t.created_by), ''),
	t.created_at, t.updated_at, t.answered_at, t.check_until`

// scanTransaction reads one row of txColumns, and the extra columns after them, and
// opens its billing data.
func (l *Ledger) scanTransaction(row pgx.Row, extra ...any) (*Transaction, error) {
	var t Transaction
	var sealed string
	var details []byte
	dest := append([]any{&t.ID, &t.MerchantID, &t.Source, &t.Kind, &t.Status, &t.ParentID, &t.CustomerID, &t.SavedMethodID,
		&t.AmountCents, &t.TipCents, &t.TaxCents, &t.ApprovedCents, &t.BalanceCents, &t.RefundedCents, &t.Reference,
		&t.Card.Brand, &t.Card.First6, &t.Card.Last4, &t.Card.AccountType, &sealed, &t.LocationID, &t.DeviceName,
		&t.UniqueTransID, &t.UpstreamType, &t.ApprovalCode, &t.ResultMessage, &t.AVSCode, &t.CVVCode,
		&t.BatchNumber, &t.HeldForReview, &t.ReviewReasons, &details, &t.CreatedBy, &t.CreatedByName,
		&t.CreatedAt, &t.UpdatedAt, &t.AnsweredAt, &t.CheckUntil}, extra...)
	if err := row.Scan(dest...); err != nil {
		return nil, err
	}
	if len(details) > 0 {
		_ = json.Unmarshal(details, &t.Details)
	}
	billing, err := l.openBilling(t.ID, sealed)
	if err != nil {
		return nil, err
	}
	t.Billing = billing
	return &t, nil
}

func billingAAD(id uuid.UUID) string { return "ledger:" + id.String() + ":billing" }

func (l *Ledger) sealBilling(id uuid.UUID, b Billing) (string, error) {
	if b.IsZero() {
		return "", nil
	}
	raw, err := json.Marshal(b)
	if err != nil {
		return "", err
	}
	return l.ring.Encrypt(string(raw), billingAAD(id))
}

func (l *Ledger) openBilling(id uuid.UUID, sealed string) (Billing, error) {
	var b Billing
	if sealed == "" {
		return b, nil
	}
	raw, err := l.ring.Decrypt(sealed, billingAAD(id))
	if err != nil {
		return b, fmt.Errorf("open billing data of %s: %w", id, err)
	}
	return b, json.Unmarshal([]byte(raw), &b)
}

// one reads the single transaction sql selects, or models.ErrNotFound.
func (l *Ledger) one(ctx context.Context, q database.Querier, sql string, args ...any) (*Transaction, error) {
	return l.oneAnd(ctx, q, nil, sql, args...)
}

// oneAnd is one, reading the extra columns sql selects after txColumns into extra.
func (l *Ledger) oneAnd(ctx context.Context, q database.Querier, extra []any, sql string, args ...any) (*Transaction, error) {
	t, err := l.scanTransaction(l.on(q).QueryRow(ctx, sql, args...), extra...)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, models.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("load transaction: %w", err)
	}
	return t, nil
}

// many reads every transaction sql selects.
func (l *Ledger) many(ctx context.Context, q database.Querier, sql string, args ...any) ([]*Transaction, error) {
	return l.collect(l.on(q).Query(ctx, sql, args...))
}

// collect reads every transaction of rows (of txColumns).
func (l *Ledger) collect(rows pgx.Rows, err error) ([]*Transaction, error) {
	if err != nil {
		return nil, fmt.Errorf("load transactions: %w", err)
	}
	defer rows.Close()
	var out []*Transaction
	for rows.Next() {
		t, err := l.scanTransaction(rows)
		if err != nil {
			return nil, fmt.Errorf("load transactions: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// Get loads a merchant's transaction; another merchant's is models.ErrNotFound.
func (l *Ledger) Get(ctx context.Context, q database.Querier, merchantID, id uuid.UUID) (*Transaction, error) {
	return l.one(ctx, q, `SELECT `+txColumns+` FROM ledger_transactions t WHERE t.id = $1 AND t.merchant_id = $2`, id, merchantID)
}

// ByID loads a transaction whoever's it is (background work).
func (l *Ledger) ByID(ctx context.Context, q database.Querier, id uuid.UUID) (*Transaction, error) {
	return l.one(ctx, q, `SELECT `+txColumns+` FROM ledger_transactions t WHERE t.id = $1`, id)
}

// Lock loads a merchant's transaction and locks its row until tx ends: the
// lock under which refunds are capped and reversals ordered.
func (l *Ledger) Lock(ctx context.Context, tx pgx.Tx, merchantID, id uuid.UUID) (*Transaction, error) {
	return l.one(ctx, tx, `SELECT `+txColumns+` FROM ledger_transactions t WHERE t.id = $1 AND t.merchant_id = $2 FOR UPDATE OF t`, id, merchantID)
}

// Children lists the operations and refunds of an original, oldest first.
func (l *Ledger) Children(ctx context.Context, q database.Querier, id uuid.UUID) ([]*Transaction, error) {
	return l.many(ctx, q, `SELECT `+txColumns+` FROM ledger_transactions t WHERE t.parent_id = $1 ORDER BY t.created_at, t.id`, id)
}

// Record stores a new transaction, usually the intent of a request about to be
// sent (StatusPending), with the first entry of its timeline. A transaction
// with the same id already recorded is returned with ErrAlreadyRecorded: a
// form sent twice is one transaction.
func (l *Ledger) Record(ctx context.Context, q database.Querier, n NewTransaction) (*Transaction, error) {
	q = l.on(q)
	if n.ID == uuid.Nil {
		n.ID = uuid.New()
	}
	if n.Status == "" {
		n.Status = StatusPending
	}
	sealed, err := l.sealBilling(n.ID, n.Billing)
	if err != nil {
		return nil, fmt.Errorf("seal billing data: %w", err)
	}
	details, err := jsonMap(n.Details)
	if err != nil {
		return nil, err
	}
	now := l.now().UTC()
	ev := n.Event
	if ev.Kind == "" {
		ev.Kind = EventRequested
	}
	if ev.ActorID == nil {
		ev.ActorID = n.CreatedBy
	}
	evDetails, err := jsonMap(ev.Details)
	if err != nil {
		return nil, err
	}
	// One statement: the line, its first timeline entry, and the line as
	// stored (nothing at all when the id is taken: a form sent twice).
	t, err := l.one(ctx, q, `WITH t AS (
			INSERT INTO ledger_transactions (id, merchant_id, source, kind, status, parent_id,
				customer_id, saved_method_id, amount_cents, tip_cents, tax_cents, reference, brand, first6, last4,
				account_type, billing_sealed, location_id, device_name, details, created_by, created_at, updated_at, check_until)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $22, $23)
			ON CONFLICT (id) DO NOTHING
			RETURNING *),
		e AS (INSERT INTO ledger_events (transaction_id, kind, actor_id, related_id, message, details, at)
			SELECT id, $24::text, $25::uuid, $26::uuid, $27::text, $28::jsonb, $22 FROM t)
		SELECT `+txColumns+` FROM t`,
		n.ID, n.MerchantID, n.Source, n.Kind, n.Status, n.ParentID, n.CustomerID, n.SavedMethodID,
		n.AmountCents, n.TipCents, n.TaxCents, n.Reference, n.Card.Brand, n.Card.First6, n.Card.Last4,
		n.Card.AccountType, sealed, n.LocationID, n.DeviceName, details, n.CreatedBy, now, n.CheckUntil,
		string(ev.Kind), ev.ActorID, ev.RelatedID, ev.Message, evDetails)
	if errors.Is(err, models.ErrNotFound) {
		existing, err := l.Get(ctx, q, n.MerchantID, n.ID)
		if err != nil {
			return nil, err
		}
		return existing, ErrAlreadyRecorded
	}
	if err != nil {
		return nil, fmt.Errorf("record transaction: %w", err)
	}
	return t, nil
}

// RecordRefund records a refund of the original n.ParentID, capped at what is
// left to refund of it: it locks the original's row, counts the refunds
// already approved and those still on their way, and refuses with
// *RefundCapError an amount above what is left. Two refunds racing each other
// take the lock in turn, so together they never exceed the original. A
// refund that is later declined or fails frees its amount (only open and
// approved refunds count).
func (l *Ledger) RecordRefund(ctx context.Context, tx pgx.Tx, n NewTransaction) (*Transaction, error) {
	if n.ParentID == nil {
		return nil, errors.New("payments: a linked refund needs its original")
	}
	orig, err := l.Lock(ctx, tx, n.MerchantID, *n.ParentID)
	if err != nil {
		return nil, err
	}
	left, err := l.refundLeft(ctx, tx, orig)
	if err != nil {
		return nil, err
	}
	if n.AmountCents <= 0 || n.AmountCents > left {
		return nil, &RefundCapError{LeftCents: left}
	}
	n.Kind = KindRefund
	return l.Record(ctx, tx, n)
}

// RefundLeft is what can still be refunded of orig, counting the refunds on
// their way; read it under Lock for a figure that holds.
func (l *Ledger) RefundLeft(ctx context.Context, q database.Querier, orig *Transaction) (int64, error) {
	return l.refundLeft(ctx, l.on(q), orig)
}

func (l *Ledger) refundLeft(ctx context.Context, q database.Querier, orig *Transaction) (int64, error) {
	if !orig.Status.Succeeded() || orig.Status == StatusVoided || orig.Kind == KindSaveMethod || orig.Kind == KindRefund {
		return 0, nil
	}
	if orig.Kind == KindAuthorization && orig.Status != StatusCaptured {
		return 0, nil
	}
	var taken int64
	err := q.QueryRow(ctx, `SELECT COALESCE(SUM(CASE WHEN status IN ('approved', 'partial') THEN approved_cents ELSE amount_cents END), 0)
		FROM ledger_transactions WHERE parent_id = $1 AND kind = 'refund' AND status IN ('pending', 'checking', 'approved', 'partial')`,
		orig.ID).Scan(&taken)
	if err != nil {
		return 0, fmt.Errorf("sum refunds: %w", err)
	}
	return max(orig.ApprovedCents-taken, 0), nil
}

// OpenOlderThan lists transactions still pending or checking that were last
// changed before before: the ones a background check should look at.
func (l *Ledger) OpenOlderThan(ctx context.Context, q database.Querier, before time.Time, limit int) ([]*Transaction, error) {
	return l.many(ctx, q, `SELECT `+txColumns+` FROM ledger_transactions t
		WHERE t.status IN ('pending', 'checking') AND t.updated_at < $1 ORDER BY t.updated_at LIMIT $2`, before, limit)
}

func jsonMap(m map[string]string) (string, error) {
	if len(m) == 0 {
		return "{}", nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("encode details: %w", err)
	}
	return string(b), nil
}
