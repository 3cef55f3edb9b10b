package payments_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/payments"
	"github.com/payportal/portal/internal/testutil/testdb"
)

func newLedger(t *testing.T) (*payments.Ledger, *database.DB) {
	t.Helper()
	db := testdb.New(t)
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	ring, err := fieldcrypt.NewKeyRing("k", map[string][]byte{"k": key})
	if err != nil {
		t.Fatal(err)
	}
	return payments.NewLedger(db.Pool, ring, time.Now), db
}

func insertUser(t *testing.T, db *database.DB, name string) uuid.UUID {
	t.Helper()
	id := uuid.New()
	if _, err := db.Pool.Exec(context.Background(), `INSERT INTO users (id, email, name, role, password_hash)
		VALUES ($1, $2, $3, 'admin', 'x')`, id, id.String()+"@example.com", name); err != nil {
		t.Fatal(err)
	}
	return id
}

// approvedSale records a sale of cents and answers it approved.
func approvedSale(t *testing.T, l *payments.Ledger, merchant uuid.UUID, cents int64, user *uuid.UUID) *payments.Transaction {
	t.Helper()
	ctx := context.Background()
	sale, err := l.Record(ctx, nil, payments.NewTransaction{MerchantID: merchant, Source: payments.SourceCard,
		Kind: payments.KindSale, AmountCents: cents, Reference: "INV-1", CreatedBy: user,
		Card:    payments.Card{Brand: "Visa", First6: "411111", Last4: "1111"},
		Billing: payments.Billing{Name: "Pat Doe", PostalCode: "94107"}})
	if err != nil {
		t.Fatal(err)
	}
	err = l.InTx(ctx, func(tx pgx.Tx) error {
		sale, err = l.Answer(ctx, tx, sale.ID, payments.Answer{Status: payments.StatusApproved, UniqueTransID: "u-" + sale.ID.String(),
			ApprovedCents: &cents, BatchNumber: "7", Event: payments.Event{Kind: payments.EventApproved}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return sale
}

func TestRecordTwiceIsOneTransaction(t *testing.T) {
	t.Parallel()
	l, _ := newLedger(t)
	ctx := context.Background()
	n := payments.NewTransaction{ID: uuid.New(), MerchantID: uuid.New(), Source: payments.SourceCard, Kind: payments.KindSale, AmountCents: 500}
	first, err := l.Record(ctx, nil, n)
	if err != nil {
		t.Fatal(err)
	}
	again, err := l.Record(ctx, nil, n)
	if !errors.Is(err, payments.ErrAlreadyRecorded) || again.ID != first.ID || again.Status != payments.StatusPending {
		t.Fatalf("second record: %v %+v", err, again)
	}
	// Another merchant cannot see it.
	if _, err := l.Get(ctx, nil, uuid.New(), first.ID); err == nil {
		t.Fatal("another merchant loaded the transaction")
	}
}

func TestAnswerCountsOnceAndReachesTheOriginal(t *testing.T) {
	t.Parallel()
	l, _ := newLedger(t)
	ctx := context.Background()
	merchant := uuid.New()
	sale := approvedSale(t, l, merchant, 1000, nil)
	if sale.Billing.Name != "Pat Doe" || sale.Card.Masked() != "411111******1111" {
		t.Fatalf("sale: %+v", sale)
	}
	// A second answer of the same transaction is refused.
	err := l.InTx(ctx, func(tx pgx.Tx) error {
		_, err := l.Answer(ctx, tx, sale.ID, payments.Answer{Status: payments.StatusDeclined})
		return err
	})
	if !errors.Is(err, payments.ErrNotOpen) {
		t.Fatalf("second answer: %v", err)
	}
	// A tip adjustment changes the original's tip and total.
	tip, total := int64(200), int64(1200)
	adj, err := l.Record(ctx, nil, payments.NewTransaction{MerchantID: merchant, Source: payments.SourceCard,
		Kind: payments.KindTipAdjust, ParentID: &sale.ID, AmountCents: 1000, TipCents: tip})
	if err != nil {
		t.Fatal(err)
	}
	mustAnswer(t, l, adj.ID, payments.Answer{Status: payments.StatusApproved, TipCents: &tip, ApprovedCents: &total})
	got, _ := l.Get(ctx, nil, merchant, sale.ID)
	if got.TipCents != 200 || got.ApprovedCents != 1200 {
		t.Fatalf("after tip: %+v", got)
	}
	// A void that the processor turned into a refund is recorded as a refund.
	void, err := l.Record(ctx, nil, payments.NewTransaction{MerchantID: merchant, Source: payments.SourceCard,
		Kind: payments.KindVoid, ParentID: &sale.ID, AmountCents: 1200})
	if err != nil {
		t.Fatal(err)
	}
	mustAnswer(t, l, void.ID, payments.Answer{Status: payments.StatusApproved, Kind: payments.KindRefund,
		UpstreamType: "CreditReturn", ApprovedCents: &total, UniqueTransID: "r-1"})
	got, _ = l.Get(ctx, nil, merchant, sale.ID)
	if got.Status != payments.StatusApproved || got.RefundedCents != 1200 || got.RefundableCents() != 0 {
		t.Fatalf("after the void became a refund: %+v", got)
	}
	timeline, err := l.Timeline(ctx, nil, sale.ID)
	if err != nil || len(timeline) < 4 {
		t.Fatalf("timeline: %v %d entries", err, len(timeline))
	}
}

func mustAnswer(t *testing.T, l *payments.Ledger, id uuid.UUID, a payments.Answer) *payments.Transaction {
	t.Helper()
	var out *payments.Transaction
	err := l.InTx(context.Background(), func(tx pgx.Tx) error {
		var err error
		out, err = l.Answer(context.Background(), tx, id, a)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestConcurrentRefundsNeverExceedTheOriginal races ten refunds of $3 against a
// $10 sale: the row lock lets three through, and the rest are refused with
// what is left.
func TestConcurrentRefundsNeverExceedTheOriginal(t *testing.T) {
	t.Parallel()
	l, _ := newLedger(t)
	ctx := context.Background()
	merchant := uuid.New()
	sale := approvedSale(t, l, merchant, 1000, nil)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var recorded []uuid.UUID
	refused := 0
	for range 10 {
		wg.Go(func() {
			err := l.InTx(ctx, func(tx pgx.Tx) error {
				r, err := l.RecordRefund(ctx, tx, payments.NewTransaction{MerchantID: merchant, Source: payments.SourceCard,
					ParentID: &sale.ID, AmountCents: 300})
				if err == nil {
					mu.Lock()
					recorded = append(recorded, r.ID)
					mu.Unlock()
				}
				return err
			})
			var capErr *payments.RefundCapError
			if errors.As(err, &capErr) {
				mu.Lock()
				refused++
				mu.Unlock()
				return
			}
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if len(recorded) != 3 || refused != 7 {
		t.Fatalf("%d refunds recorded, %d refused; want 3 and 7", len(recorded), refused)
	}
	// A declined refund frees its amount: one more fits.
	mustAnswer(t, l, recorded[0], payments.Answer{Status: payments.StatusDeclined})
	for _, id := range recorded[1:] {
		cents := int64(300)
		mustAnswer(t, l, id, payments.Answer{Status: payments.StatusApproved, ApprovedCents: &cents})
	}
	err := l.InTx(ctx, func(tx pgx.Tx) error {
		_, err := l.RecordRefund(ctx, tx, payments.NewTransaction{MerchantID: merchant, Source: payments.SourceCard,
			ParentID: &sale.ID, AmountCents: 401})
		return err
	})
	var capErr *payments.RefundCapError
	if !errors.As(err, &capErr) || capErr.LeftCents != 400 {
		t.Fatalf("refund of $4.01 with $4.00 left: %v", err)
	}
	got, _ := l.Get(ctx, nil, merchant, sale.ID)
	if got.RefundedCents != 600 {
		t.Fatalf("refunded %d, want 600", got.RefundedCents)
	}
}

func TestListFiltersBatchesAndExport(t *testing.T) {
	t.Parallel()
	l, db := newLedger(t)
	ctx := context.Background()
	merchant := uuid.New()
	ann := insertUser(t, db, "Ann")
	bob := insertUser(t, db, "Bob")
	for i := range 5 {
		approvedSale(t, l, merchant, int64(1000+i), &ann)
	}
	big := approvedSale(t, l, merchant, 250000, &bob)
	approvedSale(t, l, uuid.New(), 999, &bob) // another merchant's

	page, err := l.List(ctx, nil, payments.Filter{MerchantID: merchant, Limit: 4})
	if err != nil || len(page.Transactions) != 4 || page.Next == "" {
		t.Fatalf("first page: %v %+v", err, page)
	}
	if page.Transactions[0].ID != big.ID {
		t.Fatal("the newest is not first")
	}
	rest, err := l.List(ctx, nil, payments.Filter{MerchantID: merchant, Limit: 4, After: page.Next})
	if err != nil || len(rest.Transactions) != 2 || rest.Next != "" {
		t.Fatalf("second page: %v %+v", err, rest)
	}
	min := int64(100000)
	for name, f := range map[string]payments.Filter{
		"user":   {MerchantID: merchant, UserID: &bob},
		"amount": {MerchantID: merchant, MinCents: &min},
	} {
		got, err := l.List(ctx, nil, f)
		if err != nil || len(got.Transactions) != 1 || got.Transactions[0].ID != big.ID {
			t.Errorf("filter by %s: %v %d", name, err, len(got.Transactions))
		}
	}
	if got, _ := l.List(ctx, nil, payments.Filter{MerchantID: merchant, Last4: "4242"}); len(got.Transactions) != 0 {
		t.Error("last four 4242 matched")
	}
	if got, _ := l.List(ctx, nil, payments.Filter{MerchantID: merchant, Reference: "inv"}); len(got.Transactions) != 6 {
		t.Errorf("reference matched %d", len(got.Transactions))
	}
	// The search box: the reference, or four digits as the last four too.
	for search, want := range map[string]int{"1111": 6, "inv-1": 6, "4242": 0, "111": 0, "%": 0} {
		if got, err := l.List(ctx, nil, payments.Filter{MerchantID: merchant, Search: search}); err != nil || len(got.Transactions) != want {
			t.Errorf("search %q: %v, %d found, want %d", search, err, len(got.Transactions), want)
		}
	}
	batches, err := l.Batches(ctx, nil, merchant, 10)
	if err != nil || len(batches) != 1 || batches[0].SalesCount != 6 || batches[0].NetCents() != 250000+5010 {
		t.Fatalf("batches: %v %+v", err, batches)
	}
	var buf bytes.Buffer
	if err := l.Export(ctx, nil, payments.Filter{MerchantID: merchant}, &buf); err != nil {
		t.Fatal(err)
	}
	csv := buf.String()
	if strings.Count(csv, "\n") != 7 || !strings.Contains(csv, "Visa 411111******1111") || strings.Contains(csv, "Pat Doe") {
		t.Fatalf("export:\n%s", csv)
	}
}
