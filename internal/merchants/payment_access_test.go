package merchants_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/merchants"
	"github.com/payportal/portal/internal/models"
)

// queryCount counts the statements sent through a pool.
type queryCount struct{ n atomic.Int64 }

func (q *queryCount) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	q.n.Add(1)
	return ctx
}

func (q *queryCount) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TestPaymentAccessIsOneQueryAndAgreesWithAuthorize: the payments room's
// load of a merchant (PaymentAccessFor, then OpenPayments for an action) is
// one query, decrypts nothing until the check passed, and refuses and grants
// exactly what Authorize does, for every kind of person and right.
func TestPaymentAccessIsOneQueryAndAgreesWithAuthorize(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	id, _, _ := w.boarded(t, w.rep, "Blue Fern")
	bare, _, _ := w.boarded(t, w.rep, "No Account Shop")
	token := "eyJhbGciOiJIUzI1NiJ9.payload.signature-abcdef1234"
	must(t, w.env.App.Merchants.SetPaymentAccount(ctx, w.admin, id, merchants.PaymentInput{OID: "ACME-OID-7", Token: token}))
	must(t, w.env.App.Merchants.SetTerminalKey(ctx, w.admin, id, merchants.TerminalKeyInput{APIKey: "live-key-0123456789abcdef"}))
	cashier, _, _ := w.member(t, id, "cashier@fern.example", merchants.PermTakePayments, merchants.PermRefund)
	viewer, _, _ := w.member(t, id, "viewer@fern.example", merchants.PermViewOnly)
	outsider, _, _ := w.member(t, bare, "outsider@shop.example", merchants.PermTakePayments)
	noMFA := *cashier
	noMFA.MFAEnabledAt = nil

	// The same service on a pool that counts what it sends.
	count := &queryCount{}
	cfg, err := pgxpool.ParseConfig(w.env.DBURL)
	must(t, err)
	cfg.ConnConfig.Tracer = count
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	must(t, err)
	t.Cleanup(pool.Close)
	ring, err := fieldcrypt.ParseKeyRing(w.env.Config.EncryptionActiveKey, w.env.Config.EncryptionKeys)
	must(t, err)
	traced := merchants.NewService(merchants.Deps{Store: merchants.NewStore(pool), Ring: ring})

	check := func(name string, u *models.User, mid uuid.UUID) {
		t.Helper()
		for _, p := range []merchants.Permission{merchants.PermTakePayments, merchants.PermRefund, merchants.PermVoid, merchants.PermViewOnly} {
			want, wantErr := w.env.App.Merchants.Authorize(ctx, u, mid, p)
			before := count.n.Load()
			acc, err := traced.PaymentAccessFor(ctx, u, mid)
			var got = acc
			if err == nil {
				_, err = traced.OpenPayments(acc, p)
			}
			if n := count.n.Load() - before; n != 1 {
				t.Errorf("%s, %s: %d queries, want 1", name, p, n)
			}
			if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
				t.Errorf("%s, %s: %v, Authorize says %v", name, p, err, wantErr)
				continue
			}
			if err != nil {
				continue
			}
			acct, _ := traced.OpenPayments(got, p)
			if (acct == nil) != (want.Payments == nil) || (acct != nil && *acct != *want.Payments) {
				t.Errorf("%s, %s: account %v, Authorize gives %v", name, p, acct != nil, want.Payments != nil)
			}
		}
	}
	check("admin", w.admin, id)
	check("owning rep", w.rep, id)
	check("another rep", w.other, id)
	check("cashier", cashier, id)
	check("cashier without two-step sign-in", &noMFA, id)
	check("viewer", viewer, id)
	check("another merchant's member", outsider, id)
	check("member of a merchant without an account", outsider, bare)
	check("nobody", nil, id)
	if _, err := traced.PaymentAccessFor(ctx, w.admin, uuid.New()); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("no such merchant: %v", err)
	}
	// A page that only shows learns that there is an account and decrypts
	// nothing: the same load works on a service without the key ring.
	blind := merchants.NewService(merchants.Deps{Store: merchants.NewStore(pool)})
	for _, u := range []*models.User{viewer, cashier, w.admin} {
		acc, err := blind.PaymentAccessFor(ctx, u, id)
		if err != nil || !acc.HasPaymentAccount || strings.Contains(acc.String(), token) {
			t.Errorf("%s's access without the key ring: %v", u.Email, err)
		}
	}
	must(t, w.env.App.Merchants.Suspend(ctx, w.admin, id, "chargebacks"))
	check("cashier of a suspended merchant", cashier, id)
	// Background work: the account, in one query.
	before := count.n.Load()
	m, acct, err := traced.PaymentsForSystem(ctx, id)
	if err != nil || m.ID != id || acct == nil || acct.Token != token || count.n.Load()-before != 1 {
		t.Errorf("for the system: %v %v, %d queries", err, acct != nil, count.n.Load()-before)
	}
}
