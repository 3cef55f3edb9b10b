package deploytest_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/testutil"
)

// burst is how many clients ask at once in the connection burst: the issue's
// 48 clients, three times over.
const burst = 144

// burstWithinBudget: a burst of clients through the balancer gets no error
// while every replica's pool fills to its share of the database's limit, and
// one more connection (an admin's psql) still gets in afterwards.
func (w *work) burstWithinBudget(t *testing.T) {
	tp := w.tp
	c := newClient(tp.lb.url, "127.0.0.6")
	c.signIn(t, w.rep.Email, w.password)
	peak := atomic.Int64{}
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for {
			var n int64
			_ = tp.db.QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE usename = current_database()::text OR datname = current_database()").Scan(&n)
			if n > peak.Load() {
				peak.Store(n)
			}
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	statuses := map[int]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range burst {
		wg.Go(func() {
			<-start
			res := c.get("/?q=Replica")
			mu.Lock()
			statuses[res.Status]++
			mu.Unlock()
		})
	}
	close(start)
	wg.Wait()
	close(stop)
	<-watched
	if statuses[http.StatusOK] != burst {
		t.Errorf("a burst of %d clients got %v", burst, statuses)
	}
	psql, err := pgx.Connect(context.Background(), tp.role)
	if err != nil {
		t.Errorf("after the burst, an admin's psql cannot connect: %v", err)
	} else {
		_ = psql.Close(context.Background())
	}
	w.figures = append(w.figures, fmt.Sprintf("a burst of %d clients: %v; at most %d connections to the database (its limit %d)",
		burst, statuses, peak.Load(), dbLimit))
	t.Log(w.figures[len(w.figures)-1])
}

// rollingRestart: each replica in turn gets SIGTERM (it drains: /readyz says
// so, the balancer stops sending it work, then it closes) and is started
// again, while a client keeps reading and creating applications through the
// balancer: no answer is a 5xx or missing, and every POST made one draft.
func (w *work) rollingRestart(t *testing.T) {
	tp := w.tp
	c := newClient(tp.lb.url, "127.0.0.7")
	c.signIn(t, w.rep.Email, w.password)
	c.get("/")
	before := tp.count(t, "SELECT count(*) FROM applications WHERE owner_id = $1", w.rep.ID)
	var requests, failures, posts atomic.Int64
	var mu sync.Mutex
	var failed []string
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			created := c.postForm("/applications", nil)
			requests.Add(1)
			if created.Status == http.StatusSeeOther {
				posts.Add(1)
			}
			page := c.get(created.Location)
			requests.Add(1)
			for _, res := range []response{created, page} {
				if res.Err != nil || res.Status >= 500 || (res.Status != http.StatusSeeOther && res.Status != http.StatusOK) {
					mu.Lock()
					if failures.Add(1) <= 5 {
						failed = append(failed, fmt.Sprintf("%d from %q: %v", res.Status, res.Server, res.Err))
					}
					mu.Unlock()
				}
			}
		}
	}()
	began := time.Now()
	for _, r := range tp.replicas {
		r.proc.Terminate(t)
		// Out of rotation while it still serves: the drain lets the balancer see it.
		tp.lb.waitState(t, r.name, "DOWN")
		select {
		case <-r.proc.Exited():
			t.Errorf("%s stopped before the balancer took it out", r.name)
		default:
		}
		testutil.Eventually(t, 60*time.Second, r.name+" to stop", func() (bool, string) {
			select {
			case <-r.proc.Exited():
				return true, ""
			default:
				return false, "still running"
			}
		})
		if code := r.proc.ExitCode(); code != 0 {
			t.Errorf("%s exited %d after SIGTERM", r.name, code)
		}
		tp.start(r)
		tp.waitServing(t, r)
	}
	close(stop)
	<-done
	took := time.Since(began)
	created := tp.count(t, "SELECT count(*) FROM applications WHERE owner_id = $1", w.rep.ID) - before
	if failures.Load() != 0 {
		t.Errorf("%d of %d requests failed during the rolling restart, the first: %v", failures.Load(), requests.Load(), failed)
	}
	if int64(created) != posts.Load() {
		t.Errorf("%d POSTs answered, %d drafts made", posts.Load(), created)
	}
	w.figures = append(w.figures, fmt.Sprintf("rolling restart of 3 replicas in %.1f s: %d requests, %d failed or 5xx at the balancer, %d POSTs made %d drafts",
		took.Seconds(), requests.Load(), failures.Load(), posts.Load(), created))
	t.Log(w.figures[len(w.figures)-1])
}
