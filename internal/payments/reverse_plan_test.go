package payments_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/payments"
)

// planCase is a payment as the ledger holds it, and what "Reverse" must
// plan for it.
type planCase struct {
	name  string
	build func(b *ledgerBuilder) uuid.UUID
	// What the plan says.
	void, refund, becomesRefund, open, settled bool
	left                                       int64
	deadline                                   bool // VoidDeadline is set
	why                                        string
}

// Every branch of the reversal plan, against the ledger in the database:
// what may be voided, refunded, or nothing, and why.
func TestReversePlanBranches(t *testing.T) {
	e := newSvcEnv(t, svcOptions{})
	ctx := context.Background()
	b := &ledgerBuilder{t: t, e: e}
	for _, tc := range []planCase{
		{name: "declined sale", build: func(b *ledgerBuilder) uuid.UUID {
			return b.tx(payments.KindSale, payments.SourceCard, payments.StatusDeclined, 4000, nil, nil)
		}, why: "Only an approved payment can be reversed."},
		{name: "a refund is not reversed", build: func(b *ledgerBuilder) uuid.UUID {
			return b.tx(payments.KindRefund, payments.SourceCard, payments.StatusApproved, 4000, nil, nil)
		}, why: "Only an approved payment can be reversed."},
		{name: "terminal sale", build: func(b *ledgerBuilder) uuid.UUID {
			return b.tx(payments.KindSale, payments.SourceTerminal, payments.StatusApproved, 4000, nil, nil)
		}, why: "on the terminal"},
		{name: "authorization with a void on its way", build: func(b *ledgerBuilder) uuid.UUID {
			id := b.tx(payments.KindAuthorization, payments.SourceCard, payments.StatusApproved, 3000, nil, nil)
			b.tx(payments.KindVoid, payments.SourceCard, payments.StatusPending, 3000, &id, nil)
			return id
		}, open: true, left: 3000, why: "A void of this authorization is on its way"},
		{name: "authorization", build: func(b *ledgerBuilder) uuid.UUID {
			return b.tx(payments.KindAuthorization, payments.SourceCard, payments.StatusApproved, 3000, nil, nil)
		}, void: true, left: 3000, why: "An authorization is released with a void"},
		{name: "old authorization, settled flag", build: func(b *ledgerBuilder) uuid.UUID {
			id := b.tx(payments.KindAuthorization, payments.SourceCard, payments.StatusApproved, 3000, nil, map[string]string{"settled": "true"})
			b.age(id, 3*time.Hour)
			return id
		}, void: true, settled: true, left: 3000, why: "An authorization is released with a void"},
		{name: "sale with a void on its way", build: func(b *ledgerBuilder) uuid.UUID {
			id := b.tx(payments.KindSale, payments.SourceCard, payments.StatusApproved, 4000, nil, nil)
			b.tx(payments.KindVoid, payments.SourceCard, payments.StatusPending, 4000, &id, nil)
			return id
		}, open: true, left: 4000, why: "A void of this payment is on its way"},
		{name: "sale refunded in full", build: func(b *ledgerBuilder) uuid.UUID {
			id := b.tx(payments.KindSale, payments.SourceCard, payments.StatusApproved, 4000, nil, nil)
			b.tx(payments.KindRefund, payments.SourceCard, payments.StatusApproved, 4000, &id, nil)
			return id
		}, left: 0, why: "Nothing is left to reverse."},
		{name: "settled sale", build: func(b *ledgerBuilder) uuid.UUID {
			return b.tx(payments.KindSale, payments.SourceCard, payments.StatusApproved, 4000, nil, map[string]string{"settled": "true"})
		}, refund: true, settled: true, left: 4000, why: "has settled"},
		{name: "settled sale with refunds", build: func(b *ledgerBuilder) uuid.UUID {
			id := b.tx(payments.KindSale, payments.SourceCard, payments.StatusApproved, 4000, nil, map[string]string{"settled": "true"})
			b.tx(payments.KindRefund, payments.SourceCard, payments.StatusApproved, 1000, &id, nil)
			return id
		}, refund: true, settled: true, left: 3000, why: "has settled"},
		{name: "sale with a refund", build: func(b *ledgerBuilder) uuid.UUID {
			id := b.tx(payments.KindSale, payments.SourceCard, payments.StatusApproved, 4000, nil, nil)
			b.tx(payments.KindRefund, payments.SourceCard, payments.StatusApproved, 1000, &id, nil)
			return id
		}, refund: true, left: 3000, why: "This payment has refunds"},
		{name: "old sale with a refund on its way", build: func(b *ledgerBuilder) uuid.UUID {
			id := b.tx(payments.KindSale, payments.SourceCard, payments.StatusApproved, 4000, nil, nil)
			b.tx(payments.KindRefund, payments.SourceCard, payments.StatusPending, 1000, &id, nil)
			b.age(id, time.Hour)
			return id
		}, refund: true, left: 3000, why: "This payment has refunds"},
		{name: "sale past the void window", build: func(b *ledgerBuilder) uuid.UUID {
			id := b.tx(payments.KindSale, payments.SourceCard, payments.StatusApproved, 4000, nil, nil)
			b.age(id, 26*time.Minute)
			return id
		}, void: true, refund: true, becomesRefund: true, deadline: true, left: 4000, why: "More than 25 minutes"},
		{name: "fresh sale", build: func(b *ledgerBuilder) uuid.UUID {
			return b.tx(payments.KindSale, payments.SourceCard, payments.StatusApproved, 4000, nil, nil)
		}, void: true, refund: true, deadline: true, left: 4000, why: "Reversing the full amount voids the payment"},
		{name: "fresh partial approval", build: func(b *ledgerBuilder) uuid.UUID {
			return b.tx(payments.KindSale, payments.SourceCard, payments.StatusPartial, 2500, nil, nil)
		}, void: true, refund: true, deadline: true, left: 2500, why: "Reversing the full amount voids the payment"},
		{name: "old authorization captured now", build: func(b *ledgerBuilder) uuid.UUID {
			id := b.tx(payments.KindAuthorization, payments.SourceCard, payments.StatusApproved, 3000, nil, nil)
			b.age(id, 3*time.Hour)
			b.tx(payments.KindCapture, payments.SourceCard, payments.StatusApproved, 3000, &id, nil)
			return id
		}, void: true, refund: true, deadline: true, left: 3000, why: "Reversing the full amount voids the payment"},
		{name: "authorization captured long ago", build: func(b *ledgerBuilder) uuid.UUID {
			id := b.tx(payments.KindAuthorization, payments.SourceCard, payments.StatusApproved, 3000, nil, nil)
			capture := b.tx(payments.KindCapture, payments.SourceCard, payments.StatusApproved, 3000, &id, nil)
			b.age(id, 3*time.Hour)
			b.age(capture, 2*time.Hour)
			return id
		}, void: true, refund: true, becomesRefund: true, deadline: true, left: 3000, why: "More than 25 minutes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b.t = t
			id := tc.build(b)
			p, err := e.svc.PlanReverse(ctx, e.user, e.merchant.ID, id)
			if err != nil {
				t.Fatal(err)
			}
			if p.Void != tc.void || p.Refund != tc.refund || p.VoidBecomesRefund != tc.becomesRefund ||
				(p.Open != nil) != tc.open || p.Settled != tc.settled || p.LeftCents != tc.left ||
				p.VoidDeadline.IsZero() == tc.deadline || !strings.Contains(p.Why, tc.why) {
				t.Errorf("plan: void %v refund %v becomes refund %v open %v settled %v left %d deadline %v why %q\nwant: %+v",
					p.Void, p.Refund, p.VoidBecomesRefund, p.Open != nil, p.Settled, p.LeftCents, p.VoidDeadline, p.Why, tc)
			}
			if tc.deadline {
				from := p.Original.CreatedAt
				if kids, _ := e.svc.Ledger().Children(ctx, nil, id); len(kids) > 0 && kids[0].Kind == payments.KindCapture {
					from = kids[0].CreatedAt
				}
				if !p.VoidDeadline.Equal(from.Add(payments.VoidWindow)) {
					t.Errorf("void deadline %v, want 25 minutes after %v", p.VoidDeadline, from)
				}
			}
		})
	}
}

// ledgerBuilder writes transactions straight into the ledger.
type ledgerBuilder struct {
	t *testing.T
	e *svcEnv
}

// tx records a transaction (a child of parent, when given) and answers it
// with status unless it stays pending.
func (b *ledgerBuilder) tx(kind payments.Kind, source payments.Source, status payments.Status, cents int64, parent *uuid.UUID, details map[string]string) uuid.UUID {
	b.t.Helper()
	ctx := context.Background()
	l := b.e.svc.Ledger()
	id := uuid.New()
	n := payments.NewTransaction{ID: id, MerchantID: b.e.merchant.ID, Source: source, Kind: kind, AmountCents: cents,
		ParentID: parent, Details: details, Event: payments.Event{Message: "built by the test"}}
	err := pgx.BeginFunc(ctx, b.e.db.Pool, func(tx pgx.Tx) error {
		var err error
		if kind == payments.KindRefund && parent != nil {
			_, err = l.RecordRefund(ctx, tx, n)
		} else {
			_, err = l.Record(ctx, tx, n)
		}
		if err != nil || status == payments.StatusPending {
			return err
		}
		_, err = l.Answer(ctx, tx, id, payments.Answer{Status: status, ApprovedCents: &cents, UniqueTransID: uuid.NewString(),
			Event: payments.Event{Message: "answered by the test"}})
		return err
	})
	if err != nil {
		b.t.Fatal(err)
	}
	return id
}

// age moves a transaction's creation back by d.
func (b *ledgerBuilder) age(id uuid.UUID, d time.Duration) {
	b.t.Helper()
	_, err := b.e.db.Pool.Exec(context.Background(), `UPDATE ledger_transactions SET created_at = created_at - $2 * interval '1 microsecond' WHERE id = $1`,
		id, d.Microseconds())
	if err != nil {
		b.t.Fatal(err)
	}
}
