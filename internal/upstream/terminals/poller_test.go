package terminals_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/payportal/portal/internal/upstream/terminals"
)

// startPoller runs a poller until the test ends.
func startPoller(t *testing.T, e *env, cfg terminals.PollerConfig) *terminals.Poller {
	t.Helper()
	p, err := terminals.NewPoller(e.client, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- p.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-stopped; !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v", err)
		}
	})
	return p
}

// finishes collects the Finished of watches.
type finishes struct {
	mu   sync.Mutex
	got  map[string][]terminals.Finished
	want int
	all  chan struct{}
}

func newFinishes(want int) *finishes {
	return &finishes{got: map[string][]terminals.Finished{}, want: want, all: make(chan struct{})}
}

func (f *finishes) done(fin terminals.Finished) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got[fin.UniqueTransID] = append(f.got[fin.UniqueTransID], fin)
	if len(f.got) == f.want {
		close(f.all)
	}
}

// TestPollerFollowsManyTransactions launches on 60 devices at once and
// follows every transaction from one poller with 4 reads in flight at
// most: every result arrives once, no transaction is read twice within a
// second, and each result is read within one interval of being ready.
func TestPollerFollowsManyTransactions(t *testing.T) {
	e := newEnv(t, nil)
	locs := []terminals.Location{e.loc}
	for i := range 19 {
		locs = append(locs, e.newLocation(t, map[string]any{"name": fmt.Sprintf("Site %d", i), "applicationId": "app-1"}))
	}
	var mu sync.Mutex
	starts := map[string][]time.Time{}
	p := startPoller(t, e, terminals.PollerConfig{MaxInFlight: 4, OnPoll: func(ev terminals.PollEvent) {
		mu.Lock()
		defer mu.Unlock()
		starts[ev.UniqueTransID] = append(starts[ev.UniqueTransID], ev.Start)
	}})
	amounts := []terminals.Amount{1000, 1051, 1052, 1053, 1054, 1061}
	want := map[string]terminals.Outcome{}
	fin := newFinishes(60)
	n := 0
	for _, loc := range locs {
		for _, dev := range []string{"EMULATOR", "COUNTER-S300", "TABLE-D210"} {
			a := amounts[n%len(amounts)]
			n++
			l := e.launch(t, loc, dev, terminals.Sale(a, fmt.Sprintf("INV-%d.1", n), ""))
			want[l.UniqueTransID] = map[terminals.Amount]terminals.Outcome{1000: terminals.OutcomeApproved, 1051: terminals.OutcomeDeclined,
				1052: terminals.OutcomeCancelled, 1053: terminals.OutcomeTimedOut, 1054: terminals.OutcomeCardRemoved, 1061: terminals.OutcomeApproved}[a]
			if err := p.Watch(terminals.Watch{Location: loc, UniqueTransID: l.UniqueTransID, LaunchedAt: l.At, Done: fin.done}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if p.Watching() != 60 {
		t.Fatalf("watching %d", p.Watching())
	}
	e.slowReads.Store(60)
	e.drivePoller(p, fin.all, time.Second)

	for id, fs := range fin.got {
		if len(fs) != 1 {
			t.Errorf("%s finished %d times", id, len(fs))
			continue
		}
		f := fs[0]
		if f.Err != nil || f.Result.Outcome() != want[id] {
			t.Errorf("%s: %v %v, want %v", id, f.Err, f.Result, want[id])
			continue
		}
		ready := e.transaction(t, id).ReadyAt
		// Before the back-off (30 s) a result is read within the 1 s
		// interval of being ready; the terminal time-outs (60 s) within
		// the backed-off interval of 5 s.
		limit := time.Second
		if ready.Sub(f.LaunchedAt) > 30*time.Second {
			limit = 5 * time.Second
		}
		if lag := f.ReadAt.Sub(ready); lag < 0 || lag > limit {
			t.Errorf("%s read %v after ready, want at most %v", id, lag, limit)
		}
		mu.Lock()
		s := starts[id]
		mu.Unlock()
		for i := 1; i < len(s); i++ {
			if s[i].Sub(s[i-1]) < time.Second {
				t.Errorf("%s read at %v then %v", id, s[i-1], s[i])
			}
		}
		if len(s) != f.Polls {
			t.Errorf("%s: %d reads seen, Finished says %d", id, len(s), f.Polls)
		}
	}
	if m := e.maxReads.Load(); m > 4 || m < 2 {
		t.Errorf("%d reads in flight at once, want 2 to 4", m)
	}
	if p.Watching() != 0 {
		t.Errorf("still watching %d", p.Watching())
	}
}

func TestPollerWatchRules(t *testing.T) {
	e := newEnv(t, nil)
	p, err := terminals.NewPoller(e.client, terminals.PollerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	called := make(chan terminals.Finished, 1)
	w := terminals.Watch{Location: e.loc, UniqueTransID: "abc", Done: func(f terminals.Finished) { called <- f }}
	if err := p.Watch(w); err != nil {
		t.Fatal(err)
	}
	if err := p.Watch(w); !errors.Is(err, terminals.ErrAlreadyWatched) {
		t.Errorf("second watch: %v", err)
	}
	if err := p.Watch(terminals.Watch{UniqueTransID: "def"}); err == nil {
		t.Error("watch without Done accepted")
	}
	if err := p.Watch(terminals.Watch{Done: w.Done}); !errors.Is(err, terminals.ErrInvalid) {
		t.Errorf("watch without id: %v", err)
	}
	if !p.Forget("abc") || p.Forget("abc") || p.Watching() != 0 {
		t.Error("forget")
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _ = p.Run(ctx) }()
	defer cancel()
	if err := e.clock.WaitForTimers(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	select {
	case f := <-called:
		t.Errorf("forgotten watch finished: %+v", f)
	default:
	}
}

func TestPollerEndsOnUnknownTransaction(t *testing.T) {
	e := newEnv(t, nil)
	p := startPoller(t, e, terminals.PollerConfig{})
	fin := newFinishes(1)
	if err := p.Watch(terminals.Watch{Location: e.loc, UniqueTransID: "ffffffffffffffffffffffffffffffff", LaunchedAt: e.clock.Now(), Done: fin.done}); err != nil {
		t.Fatal(err)
	}
	e.drivePoller(p, fin.all, time.Second)
	f := fin.got["ffffffffffffffffffffffffffffffff"][0]
	if !errors.Is(f.Err, terminals.ErrNotFound) || f.Polls != 1 {
		t.Errorf("finished = %+v", f)
	}
}

// TestPollerKeepsTheBudgetAcrossRestarts follows a transaction launched
// 299 s ago, as after a portal restart: one read now, one at the end of
// the budget, then the budget is spent.
func TestPollerKeepsTheBudgetAcrossRestarts(t *testing.T) {
	e := newEnv(t, nil)
	e.admin(t, http.MethodPut, "/settings", map[string]any{"terminalTimeout": "10m"}, nil)
	l := e.launch(t, e.loc, "EMULATOR", terminals.Sale(153, "", ""))
	e.clock.Advance(299 * time.Second)
	p := startPoller(t, e, terminals.PollerConfig{})
	fin := newFinishes(1)
	if err := p.Watch(terminals.Watch{Location: e.loc, UniqueTransID: l.UniqueTransID, LaunchedAt: l.At, Done: fin.done}); err != nil {
		t.Fatal(err)
	}
	e.drivePoller(p, fin.all, time.Second)
	f := fin.got[l.UniqueTransID][0]
	if !errors.Is(f.Err, terminals.ErrBudgetExceeded) || f.Polls != 2 || !f.ReadAt.Equal(l.At.Add(5*time.Minute)) {
		t.Errorf("finished = %+v", f)
	}
}

// TestPollerStopsAndResumes stops a poller mid-way: the transaction stays
// queued and a new Run finishes it.
func TestPollerStopsAndResumes(t *testing.T) {
	e := newEnv(t, nil)
	p, err := terminals.NewPoller(e.client, terminals.PollerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	l := e.launch(t, e.loc, "EMULATOR", terminals.Sale(100, "", ""))
	fin := newFinishes(1)
	if err := p.Watch(terminals.Watch{Location: e.loc, UniqueTransID: l.UniqueTransID, LaunchedAt: l.At, Done: fin.done}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- p.Run(ctx) }()
	if err := e.clock.WaitForTimers(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if err := p.Run(context.Background()); !errors.Is(err, terminals.ErrPollerRunning) {
		t.Errorf("second Run: %v", err)
	}
	cancel()
	if err := <-stopped; !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v", err)
	}
	if p.Watching() != 1 {
		t.Fatalf("watching %d after the stop", p.Watching())
	}
	e.clock.Advance(10 * time.Second)
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	go func() { _ = p.Run(ctx2) }()
	r, err := p.Await(context.Background(), terminals.Watch{Location: e.loc, UniqueTransID: "ffffffffffffffffffffffffffffffff", LaunchedAt: l.At})
	if !errors.Is(err, terminals.ErrNotFound) || r != nil {
		t.Errorf("Await of an unknown id: %v", err)
	}
	select {
	case <-fin.all:
	case <-time.After(10 * time.Second):
		t.Fatal("the resumed poller did not finish the transaction")
	}
	if f := fin.got[l.UniqueTransID][0]; f.Err != nil || !f.Result.ResultStatus || f.Polls != 1 {
		t.Errorf("finished = %+v", f)
	}
}
