package payments_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/payments"
	"github.com/payportal/portal/internal/testutil/apptest"
	upstream "github.com/payportal/portal/internal/upstream/payments"
)

// BenchmarkKeyedSaleOverhead measures the portal's own overhead on a keyed
// card sale: each round sends n sales through the portal's HTTP handler (a
// signed-in merchant user's POST of the virtual terminal's form, with its
// session, CSRF, form token, intent, duplicate check, audit, check job,
// answer and redirect) and n of the same sales straight to the sandbox with
// the client, at once, in turn (which goes first alternates). Within a round
// the two sides' times are sorted and paired by rank; the overhead of a pair
// is the portal's time minus the client's. Its p50 and p99 are reported, with
// both sides' p50 and p99 and the load average. The portal has the database
// pool `portal serve` opens (PORTAL_DB_MAX_CONNS's default), not the small
// one of the tests.
//
//	go test ./internal/payments -run '^$' -bench KeyedSaleOverhead -benchtime 40x
func BenchmarkKeyedSaleOverhead(b *testing.B) {
	for _, n := range []int{1, 50} {
		b.Run(fmt.Sprintf("concurrent=%d", n), func(b *testing.B) { benchSales(b, n) })
	}
}

func benchSales(b *testing.B, n int) {
	p := newPortal(b, apptest.WithLogger(slog.DiscardHandler), apptest.WithConfiguredPool())
	p.c.KeepConnections(2 * n)
	s := newSaleSides(b, p)
	viaPortal, direct := s.viaPortal, s.direct
	batch := func(fn func() time.Duration) []time.Duration {
		out := make([]time.Duration, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { out[i] = fn() })
		}
		wg.Wait()
		return out
	}
	// Warm both paths (connections, prepared statements, templates).
	batch(viaPortal)
	batch(direct)
	var overhead, portalTimes, directTimes []time.Duration
	round := 0
	b.ResetTimer()
	for b.Loop() {
		var pt, dt []time.Duration
		if round%2 == 0 {
			pt, dt = batch(viaPortal), batch(direct)
		} else {
			dt, pt = batch(direct), batch(viaPortal)
		}
		round++
		slices.Sort(pt)
		slices.Sort(dt)
		for i := range pt {
			overhead = append(overhead, pt[i]-dt[i])
		}
		portalTimes, directTimes = append(portalTimes, pt...), append(directTimes, dt...)
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(quantile(overhead, 0.50)), "p50-overhead-ms")
	b.ReportMetric(ms(quantile(overhead, 0.99)), "p99-overhead-ms")
	b.ReportMetric(ms(quantile(portalTimes, 0.50)), "p50-portal-ms")
	b.ReportMetric(ms(quantile(directTimes, 0.50)), "p50-direct-ms")
	b.ReportMetric(ms(quantile(portalTimes, 0.99)), "p99-portal-ms")
	b.ReportMetric(ms(quantile(directTimes, 0.99)), "p99-direct-ms")
	b.ReportMetric(float64(len(overhead)), "pairs")
	b.ReportMetric(loadAverage(), "load1")
}

// saleSides are the two ways of making the same keyed sale: through the
// portal's HTTP handler as a signed-in cashier, and straight to the sandbox
// with the portal's own client. Each returns the time the sale took.
type saleSides struct {
	viaPortal, direct func() time.Duration
}

func newSaleSides(b *testing.B, p *portal) saleSides {
	client, err := upstream.New(upstream.Config{BaseURL: p.env.Sandbox.URL + "/virtualterminal/v1", AppVersion: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	acct := p.account
	var seq atomic.Int64
	// Amounts differ from sale to sale, so the duplicate warning never applies.
	amount := func() string { c := 100 + seq.Add(1); return fmt.Sprintf("%d.%02d", c/100, c%100) }
	viaPortal := func() time.Duration {
		token, err := p.env.App.Payments.MintToken(&payments.Merchant{ID: p.merchant}, p.staff, payments.PurposePay)
		if err != nil {
			b.Fatal(err)
		}
		form := url.Values{"form_token": {token}, "action": {"sale"}, "amount": {amount()}, "card_number": {"4111 1111 1111 1111"},
			"expiry": {expiry()}, "security_code": {"123"}, "billing_zip": {"94107"}, "reference": {"BENCH-1"}}
		start := time.Now()
		res := p.c.PostForm(p.base()+"/payments/card", form)
		d := time.Since(start)
		if res.Status != http.StatusSeeOther || !strings.Contains(res.Location, "/transactions/") {
			b.Fatalf("sale through the portal: %d %s", res.Status, res.Location)
		}
		return d
	}
	direct := func() time.Duration {
		number, _ := upstream.NewCardNumber("4111111111111111")
		code, _ := upstream.NewSecurityCode("123")
		id := uuid.NewString()
		start := time.Now()
		t, err := client.Sale(context.Background(), acct, upstream.CardPayment{
			Ref:     upstream.Ref{ExternalTransactionID: id, IdempotencyKey: id, TransactionReference: "BENCH-1", CashierID: "Bench"},
			Card:    upstream.Card{Number: number, Expiry: strings.Replace(expiry(), "/", "-", 1), SecurityCode: code},
			Billing: upstream.Billing{PostalCode: "94107"}, Amount: upstream.Amount(amount())})
		d := time.Since(start)
		if err != nil || !t.Approved() {
			b.Fatalf("direct sale: %v", err)
		}
		return d
	}
	return saleSides{viaPortal: viaPortal, direct: direct}
}

// loadAverage is the 1-minute load average (0 where /proc is missing).
func loadAverage() float64 {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	var load float64
	_, _ = fmt.Sscan(string(raw), &load)
	return load
}

// quantile is the q-th quantile (nearest rank) of ds.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}
