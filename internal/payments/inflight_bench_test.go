package payments_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/payportal/portal/internal/testutil/apptest"
)

// inFlightSales is how many sales the in-flight benchmark keeps going at once.
const inFlightSales = 50

// inFlightWindow is how long each side of a round keeps its sales going.
const inFlightWindow = 3 * time.Second

// BenchmarkKeyedSaleInFlight measures the portal's own overhead on a keyed
// card sale with 50 sales in flight at every moment and the gateway
// answering after a realistic delay: 50 cashiers each send a sale as soon as
// their previous one is answered (a closed loop), first through the portal's
// HTTP handler, then straight to the sandbox with the client (the order
// alternates by round), each side for three seconds. The sandbox adds the
// latency to every answer, as a gateway on the network would. A round's
// overhead is the portal's p50 (p99) minus the client's in that round;
// reported: the median over rounds of those paired differences, both sides'
// pooled p50 and p99, sales a second on each side, and the load average.
// The first round warms connections and is not counted.
//
//	go test ./internal/payments -run '^$' -bench KeyedSaleInFlight -benchtime 6x
func BenchmarkKeyedSaleInFlight(b *testing.B) {
	for _, latency := range []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond} {
		b.Run(fmt.Sprintf("latency=%s", latency), func(b *testing.B) { benchInFlight(b, latency) })
	}
}

func benchInFlight(b *testing.B, latency time.Duration) {
	p := newPortal(b, apptest.WithLogger(slog.DiscardHandler), apptest.WithConfiguredPool())
	p.c.KeepConnections(2 * inFlightSales)
	p.adminJSON(http.MethodPut, "/_sandbox/admin/api/faults", map[string]string{"latency": latency.String()}, nil)
	s := newSaleSides(b, p)
	// run keeps inFlightSales cashiers selling with fn for the window and
	// returns the times of the sales that started within it.
	run := func(fn func() time.Duration) []time.Duration {
		var (
			mu  sync.Mutex
			out []time.Duration
			wg  sync.WaitGroup
		)
		end := time.Now().Add(inFlightWindow)
		for i := range inFlightSales {
			wg.Go(func() {
				// Cashiers start spread over one answer's delay, as they would
				// once the loop has run a while, not all in the same instant.
				time.Sleep(latency * time.Duration(i) / inFlightSales)
				for time.Now().Before(end) {
					d := fn()
					mu.Lock()
					out = append(out, d)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		return out
	}
	run(s.viaPortal)
	run(s.direct)
	var (
		p50s, p99s        []time.Duration
		portalAll, direct []time.Duration
		portalN, directN  int
		round             int
	)
	b.ResetTimer()
	for b.Loop() {
		var pt, dt []time.Duration
		if round%2 == 0 {
			pt, dt = run(s.viaPortal), run(s.direct)
		} else {
			dt, pt = run(s.direct), run(s.viaPortal)
		}
		round++
		p50s = append(p50s, quantile(pt, 0.50)-quantile(dt, 0.50))
		p99s = append(p99s, quantile(pt, 0.99)-quantile(dt, 0.99))
		portalAll, direct = append(portalAll, pt...), append(direct, dt...)
		portalN, directN = portalN+len(pt), directN+len(dt)
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	secs := float64(round) * inFlightWindow.Seconds()
	b.ReportMetric(ms(quantile(p50s, 0.50)), "p50-overhead-ms")
	b.ReportMetric(ms(quantile(p99s, 0.50)), "p99-overhead-ms")
	b.ReportMetric(ms(slices.Max(p50s)), "p50-overhead-max-ms")
	b.ReportMetric(ms(slices.Max(p99s)), "p99-overhead-max-ms")
	b.ReportMetric(ms(quantile(portalAll, 0.50)), "p50-portal-ms")
	b.ReportMetric(ms(quantile(direct, 0.50)), "p50-direct-ms")
	b.ReportMetric(ms(quantile(portalAll, 0.99)), "p99-portal-ms")
	b.ReportMetric(ms(quantile(direct, 0.99)), "p99-direct-ms")
	b.ReportMetric(float64(portalN)/secs, "portal-sales/s")
	b.ReportMetric(float64(directN)/secs, "direct-sales/s")
	b.ReportMetric(loadAverage(), "load1")
}
