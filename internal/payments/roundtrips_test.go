package payments_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/payments"
	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// roundTrips counts what the payments service sends to PostgreSQL for the
// requests whose context carries countKey: one round trip per statement sent
// alone, one per batch (however many statements it holds).
type roundTrips struct {
	mu         sync.Mutex
	trips      int
	statements []string
}

type countKey struct{}

func (r *roundTrips) counted(ctx context.Context) bool { return ctx.Value(countKey{}) != nil }

func (r *roundTrips) add(trip bool, sql string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if trip {
		r.trips++
	}
	sql = strings.Join(strings.Fields(sql), " ")
	if len(sql) > 100 {
		sql = sql[:100] + "…"
	}
	r.statements = append(r.statements, sql)
}

func (r *roundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	if r.counted(ctx) {
		r.add(true, d.SQL)
	}
	return ctx
}

func (r *roundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (r *roundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	if r.counted(ctx) {
		r.add(true, "-- batch:")
	}
	return ctx
}

func (r *roundTrips) TraceBatchQuery(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	if r.counted(ctx) {
		r.add(false, "--   "+d.SQL)
	}
}

func (r *roundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

func (r *roundTrips) take() (int, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n, list := r.trips, r.statements
	r.trips, r.statements = 0, nil
	return n, list
}

// maxSaleRoundTrips bounds the payments room's own round trips for one keyed
// sale (the merchant's load is the merchants room's, faked here, and one
// query there: TestPaymentAccessIsOneQuery): the form token's read (1), the
// intent's transaction (begin, the duplicate lock and query as one batch,
// the ledger line with its timeline entry, the check job, both audit
// entries, commit: 6) and the answer with its timeline entry (1).
const maxSaleRoundTrips = 8

// TestKeyedSaleRoundTrips counts the statements of one keyed sale, warm (the
// connection's statements prepared by an earlier sale), so that a change
// adding round trips to every sale is seen.
func TestKeyedSaleRoundTrips(t *testing.T) {
	t.Parallel()
	rt := &roundTrips{}
	e := newSvcEnv(t, svcOptions{tracer: rt})
	for i, amount := range []string{"10.01", "10.02", "10.03"} {
		ctx := context.WithValue(context.Background(), countKey{}, true)
		res, err := e.svc.PayCard(ctx, e.user, e.merchant.ID, e.cardForm("4111111111111111", amount))
		if err != nil || res.Transaction.Status != payments.StatusApproved {
			t.Fatalf("sale %d: %v", i, err)
		}
		n, list := rt.take()
		t.Logf("sale %d: %d round trips\n%s", i, n, strings.Join(list, "\n"))
		if i > 0 && n > maxSaleRoundTrips {
			t.Errorf("sale %d: %d round trips, want at most %d", i, n, maxSaleRoundTrips)
		}
	}
}

// TestConcurrentSameCardSalesChargeOnce: the same card and amount sent at
// once from eight forms (eight tabs): the duplicate check, under its lock,
// lets one through and warns the seven others.
func TestConcurrentSameCardSalesChargeOnce(t *testing.T) {
	t.Parallel()
	e := newSvcEnv(t, svcOptions{})
	forms := make([]*payments.CardPaymentForm, 8)
	for i := range forms {
		forms[i] = e.cardForm("5555555555554444", "61.00")
	}
	var mu sync.Mutex
	charged, warned := 0, 0
	var wg sync.WaitGroup
	for _, f := range forms {
		wg.Go(func() {
			_, err := e.svc.PayCard(context.Background(), e.user, e.merchant.ID, f)
			var dup *payments.DuplicateError
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				charged++
			case errors.As(err, &dup):
				warned++
			default:
				t.Errorf("sale: %v", err)
			}
		})
	}
	wg.Wait()
	if charged != 1 || warned != 7 || len(e.upstreamTransactions()) != 1 {
		t.Fatalf("%d charged, %d warned, %d upstream; want 1, 7, 1", charged, warned, len(e.upstreamTransactions()))
	}
}

// TestLockThenQueryInOneBatchSeesWhatTheLockWaitedFor: what the duplicate
// check relies on. Under READ COMMITTED, a query sent in the same batch
// right after an advisory lock that had to wait sees what the holder of the
// lock committed meanwhile: each statement takes its snapshot when it starts.
func TestLockThenQueryInOneBatchSeesWhatTheLockWaitedFor(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	if _, err := db.Pool.Exec(ctx, `CREATE TABLE lock_probe (n int)`); err != nil {
		t.Fatal(err)
	}
	holder, err := db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = holder.Rollback(ctx) }()
	if _, err := holder.Exec(ctx, `SELECT pg_advisory_xact_lock(4242)`); err != nil {
		t.Fatal(err)
	}
	if _, err := holder.Exec(ctx, `INSERT INTO lock_probe VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	seen := make(chan int, 1)
	go func() {
		n := -1
		defer func() { seen <- n }()
		tx, err := db.Pool.Begin(ctx)
		if err != nil {
			return
		}
		defer func() { _ = tx.Rollback(ctx) }()
		b := &pgx.Batch{}
		b.Queue(`SELECT pg_advisory_xact_lock(4242)`)
		b.Queue(`SELECT count(*) FROM lock_probe`)
		br := tx.SendBatch(ctx, b)
		defer br.Close()
		if _, err := br.Exec(); err != nil {
			return
		}
		_ = br.QueryRow().Scan(&n)
	}()
	testutil.Eventually(t, 10*time.Second, "the batch waiting for the lock", func() (bool, string) {
		var waiting int
		err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`).Scan(&waiting)
		return err == nil && waiting == 1, fmt.Sprint(waiting, err)
	})
	if err := holder.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if n := <-seen; n != 1 {
		t.Fatalf("the query after the lock saw %d rows, want 1 (the lock holder's)", n)
	}
}
