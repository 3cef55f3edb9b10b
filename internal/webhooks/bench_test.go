package webhooks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/testutil/cputime"
	"github.com/payportal/portal/internal/webhooks"
)

// arrivals keeps when each event was committed and when its delivery arrived.
type arrivals struct {
	mu        sync.Mutex
	committed map[uuid.UUID]time.Time
	lags      []time.Duration
	last      time.Time
}

func (a *arrivals) sent(id uuid.UUID, at time.Time) {
	a.mu.Lock()
	a.committed[id] = at
	a.mu.Unlock()
}

func (a *arrivals) arrived(id uuid.UUID, at time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if c, ok := a.committed[id]; ok {
		a.lags = append(a.lags, at.Sub(c))
		delete(a.committed, id)
		a.last = at
	}
}

func (a *arrivals) count() int { a.mu.Lock(); defer a.mu.Unlock(); return len(a.lags) }

// BenchmarkWebhookFanOut emits payment.approved events, each in a transaction of its
// own as the ledger's answers are, to one endpoint whose receiver is on the same machine
// (plain HTTP on the loopback, answering 204 at once), and reports the deliveries a
// second and the delivery lag: from the event's commit to its arrival at the receiver.
// "rate=500" emits at 500 events a second (the goal: every delivery within 1 s at p99);
// "burst" emits as fast as eight writers can, to find the ceiling. Run with
// -benchtime=Nx: N events.
func BenchmarkWebhookFanOut(b *testing.B) {
	for _, rate := range []int{500, 0} {
		name := "burst"
		if rate > 0 {
			name = fmt.Sprintf("rate=%d", rate)
		}
		b.Run(name, func(b *testing.B) { fanOut(b, rate) })
	}
}

func fanOut(b *testing.B, rate int) {
	// The production defaults: 16 webhook workers (PORTAL_WEBHOOK_CONCURRENCY).
	f := setup(b, options{workers: true, allowPrivate: true, concurrency: 16})
	a := &arrivals{committed: map[uuid.UUID]time.Time{}}
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p webhooks.Payload
		_ = json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&p)
		a.arrived(p.Data.ID, time.Now())
		w.WriteHeader(http.StatusNoContent)
	}))
	b.Cleanup(rcv.Close)
	f.endpoint(b, rcv.URL+"/hooks", f.resellerKey, webhooks.PaymentApproved)
	merchant := f.merchant(b, f.rep)
	n := b.N
	pg := cputime.FindPostgres(context.Background(), f.db.Pool)
	cpu0, pg0 := cputime.Process(), pg.Used()
	b.ResetTimer()
	start := time.Now()
	emitAll(b, f, merchant, n, rate, a)
	testutil.Eventually(b, 5*time.Minute, "every delivery", func() (bool, string) { return a.count() >= n, fmt.Sprint(a.count()) })
	b.StopTimer()
	cpu, pgCPU := cputime.Process()-cpu0, pg.Used()-pg0
	lags := slices.Clone(a.lags)
	slices.Sort(lags)
	elapsed := a.last.Sub(start)
	b.ReportMetric(float64(n)/elapsed.Seconds(), "events/s")
	b.ReportMetric(ms(lags[len(lags)/2]), "p50-lag-ms")
	b.ReportMetric(ms(lags[len(lags)*99/100]), "p99-lag-ms")
	b.ReportMetric(ms(lags[len(lags)-1]), "max-lag-ms")
	// CPU per event, the portal's (emitting, delivering, receiving: one process) and
	// PostgreSQL's: what bounds the rate on a machine of two cores, whatever else runs.
	b.ReportMetric(ms(cpu)/float64(n), "portal-cpu-ms/event")
	b.ReportMetric(ms(pgCPU)/float64(n), "pg-cpu-ms/event")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// emitAll emits n events from eight writers, at rate a second in all (0: at once).
func emitAll(b *testing.B, f *fixture, merchant uuid.UUID, n, rate int, a *arrivals) {
	const writers = 8
	var wg sync.WaitGroup
	next := make(chan int)
	go func() {
		defer close(next)
		var tick *time.Ticker
		if rate > 0 {
			tick = time.NewTicker(time.Second / time.Duration(rate))
			defer tick.Stop()
		}
		for i := range n {
			if tick != nil {
				<-tick.C
			}
			next <- i
		}
	}()
	for range writers {
		wg.Go(func() {
			ctx := context.Background()
			for range next {
				id := uuid.New()
				tx, err := f.db.Pool.Begin(ctx)
				if err != nil {
					b.Error(err)
					return
				}
				err = f.emit.Emit(ctx, tx, webhooks.News{Type: webhooks.PaymentApproved, MerchantID: merchant,
					Data: webhooks.Data{Object: webhooks.ObjectPayment, ID: id, State: "approved", Amount: "12.50", Currency: "USD"}})
				a.sent(id, time.Now()) // before the commit, so the arrival never comes first
				if err == nil {
					err = tx.Commit(ctx)
				}
				if err != nil {
					_ = tx.Rollback(ctx)
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}
