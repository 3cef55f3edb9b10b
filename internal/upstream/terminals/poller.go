package terminals

import (
	"cmp"
	"container/heap"
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of PollerConfig.
const (
	DefaultMaxInFlight = 32
	DefaultPollTimeout = 10 * time.Second
)

// ErrAlreadyWatched is returned by Poller.Watch for a transaction it
// already follows: one transaction has at most one read in flight.
var ErrAlreadyWatched = errors.New("terminals: transaction is already being followed")

// ErrPollerRunning is returned by a second concurrent Poller.Run.
var ErrPollerRunning = errors.New("terminals: poller is already running")

// PollerConfig configures a Poller. Its schedule is the client's Poll
// policy and its clock the client's Clock.
type PollerConfig struct {
	// MaxInFlight bounds the reads in flight at once, all transactions
	// together. Default 32.
	MaxInFlight int
	// PollTimeout bounds one read. Default 10 s.
	PollTimeout time.Duration
	// OnPoll, when set, is told of every read (for metrics and the health
	// of a device: latency, errors). It runs on the read's slot: return
	// promptly.
	OnPoll func(PollEvent)
}

// PollEvent describes one read.
type PollEvent struct {
	UniqueTransID string
	Start         time.Time
	Duration      time.Duration // by the client's clock
	// Ready is set when the read returned the result.
	Ready bool
	// Err is the read's failure: nil when ready or not ready yet.
	Err error
	// Polls counts the reads of this transaction so far, this one included.
	Polls int
}

// Poller follows many launched transactions from one loop: a queue ordered
// by the time of each transaction's next read, and at most MaxInFlight
// reads running at once, each in a short-lived goroutine. No goroutine
// waits per transaction, so hundreds of transactions in flight cost a heap
// entry each. Each transaction is read on the PollPolicy (first read ~1 s
// after the launch, then every Interval, backing off after 30 s, one last
// read at the end of the budget), never twice at once.
//
// Use: NewPoller, go Run(ctx), then Watch each launched transaction; its
// Done receives the Finished once. Watch may be called before Run. When
// Run's context ends, Run waits for the reads in flight and returns; the
// transactions not finished stay queued for a later Run. After a process
// restart, Watch them again with their original LaunchedAt.
type Poller struct {
	c      *Client
	cfg    PollerConfig
	policy PollPolicy
	clock  Clock

	mu       sync.Mutex
	jobs     map[string]*job
	queue    jobQueue
	inFlight int
	running  bool
	wake     chan struct{}
}

// job is one followed transaction.
type job struct {
	w         Watch
	sched     schedule
	due       time.Time
	index     int // in the queue; -1 while its read is in flight
	polls     int
	failed    int
	last      error // the last failed read since the last "not ready"
	forgotten bool
}

// NewPoller makes a Poller reading results with c.
func NewPoller(c *Client, cfg PollerConfig) (*Poller, error) {
	if cfg.MaxInFlight < 0 || cfg.PollTimeout < 0 {
		return nil, errors.New("terminals: poller limits must not be negative")
	}
	cfg.MaxInFlight = cmp.Or(cfg.MaxInFlight, DefaultMaxInFlight)
	cfg.PollTimeout = cmp.Or(cfg.PollTimeout, DefaultPollTimeout)
	return &Poller{c: c, cfg: cfg, policy: c.cfg.Poll, clock: c.cfg.Clock, jobs: map[string]*job{},
		wake: make(chan struct{}, 1)}, nil
}

// Watch starts following w. It returns ErrAlreadyWatched when w's
// transaction is already followed, and an error when w lacks its id or
// its Done.
func (p *Poller) Watch(w Watch) error {
	if strings.TrimSpace(w.UniqueTransID) == "" {
		return &FieldError{Field: "uniqueTransId", Message: "is required"}
	}
	if w.Done == nil {
		return errors.New("terminals: a watch needs its Done")
	}
	now := p.clock.Now()
	if w.LaunchedAt.IsZero() {
		w.LaunchedAt = now
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.jobs[w.UniqueTransID]; ok {
		return ErrAlreadyWatched
	}
	j := &job{w: w, sched: schedule{policy: p.policy, launchedAt: w.LaunchedAt}}
	j.due = j.sched.first(now)
	p.jobs[w.UniqueTransID] = j
	heap.Push(&p.queue, j)
	p.signal()
	return nil
}

// Forget stops following a transaction (the user settled it by hand); its
// Done is not called. A read in flight is let finish and ignored. It
// reports whether the transaction was followed.
func (p *Poller) Forget(uniqueTransID string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	j, ok := p.jobs[uniqueTransID]
	if !ok {
		return false
	}
	j.forgotten = true
	if j.index >= 0 {
		heap.Remove(&p.queue, j.index)
	}
	delete(p.jobs, uniqueTransID)
	return true
}

// InFlight returns how many reads are running (for a metrics gauge).
func (p *Poller) InFlight() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.inFlight
}

// Watching returns how many transactions are followed.
func (p *Poller) Watching() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.jobs)
}

// Await follows w and waits for its end: the result, or the Finished's
// error. When ctx ends first, the transaction is forgotten and ctx's error
// returned. w.Done is replaced. Run must be running.
func (p *Poller) Await(ctx context.Context, w Watch) (*Result, error) {
	ch := make(chan Finished, 1)
	w.Done = func(f Finished) { ch <- f }
	if err := p.Watch(w); err != nil {
		return nil, err
	}
	select {
	case f := <-ch:
		return f.Result, f.Err
	case <-ctx.Done():
		p.Forget(w.UniqueTransID)
		return nil, ctx.Err()
	}
}

// signal wakes the loop; the caller holds p.mu or not, either is fine.
func (p *Poller) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Run is the loop: it starts each due read while fewer than MaxInFlight
// run, and sleeps on the clock until the next one is due. It returns ctx's
// error once ctx ends and the reads in flight have returned.
func (p *Poller) Run(ctx context.Context) error {
	p.mu.Lock()
	if p.running {
		p.mu.Unlock()
		return ErrPollerRunning
	}
	p.running = true
	p.mu.Unlock()
	var wg sync.WaitGroup
	defer func() {
		wg.Wait()
		p.mu.Lock()
		p.running = false
		p.mu.Unlock()
	}()
	for {
		p.mu.Lock()
		now := p.clock.Now()
		for p.inFlight < p.cfg.MaxInFlight && p.queue.Len() > 0 && !p.queue[0].due.After(now) {
			j := heap.Pop(&p.queue).(*job)
			p.inFlight++
			wg.Go(func() { p.poll(ctx, j) })
		}
		var due time.Time
		if p.inFlight < p.cfg.MaxInFlight && p.queue.Len() > 0 {
			due = p.queue[0].due
		}
		p.mu.Unlock()
		var timer Timer
		var fire <-chan time.Time
		if !due.IsZero() {
			timer = p.clock.NewTimerAt(due)
			fire = timer.C()
		}
		select {
		case <-ctx.Done():
			if timer != nil {
				timer.Stop()
			}
			return ctx.Err()
		case <-p.wake:
		case <-fire:
		}
		if timer != nil {
			timer.Stop()
		}
	}
}

// poll makes one read of j and requeues or finishes it. The read's slot is
// held until OnPoll and Done have returned.
func (p *Poller) poll(ctx context.Context, j *job) {
	defer func() {
		p.mu.Lock()
		p.inFlight--
		p.signal()
		p.mu.Unlock()
	}()
	id := j.w.UniqueTransID
	pctx, cancel := context.WithTimeout(ctx, p.cfg.PollTimeout)
	// The next read is scheduled from the moment this one was written, so
	// two reads of a transaction leave the process at least Interval apart
	// however long this goroutine waited for a CPU before sending.
	var wrote atomic.Int64
	pctx = context.WithValue(pctx, wroteKey{}, func(t time.Time) { wrote.Store(t.UnixNano()) })
	start := p.clock.Now()
	r, err := p.c.result(pctx, j.w.Location, id, 1)
	cancel()
	end := p.clock.Now()
	if w := wrote.Load(); w != 0 {
		start = time.Unix(0, w).In(start.Location())
	}
	p.mu.Lock()
	if ctx.Err() != nil {
		// Stopping: the read does not count; keep the job for a later Run.
		if !j.forgotten {
			j.due = end
			heap.Push(&p.queue, j)
		}
		p.mu.Unlock()
		return
	}
	if j.forgotten {
		p.mu.Unlock()
		return
	}
	j.polls++
	var fin *Finished
	switch {
	case err == nil:
		fin = &Finished{Result: r}
	case endsPolling(err):
		fin = &Finished{Err: err}
	default:
		if errors.Is(err, ErrNotReady) {
			j.last = nil
		} else {
			j.failed++
			j.last = err
		}
		if due, ok := j.sched.next(start, end); ok {
			j.due = due
			heap.Push(&p.queue, j)
		} else {
			fin = &Finished{Err: &budgetError{id: id, polls: j.polls, last: j.last}}
		}
	}
	if fin != nil {
		delete(p.jobs, id)
		fin.UniqueTransID, fin.Polls, fin.FailedPolls = id, j.polls, j.failed
		fin.LaunchedAt, fin.ReadAt = j.w.LaunchedAt, end
	}
	polls := j.polls
	p.mu.Unlock()
	if p.cfg.OnPoll != nil {
		ev := PollEvent{UniqueTransID: id, Start: start, Duration: end.Sub(start), Ready: err == nil, Polls: polls}
		if err != nil && !errors.Is(err, ErrNotReady) {
			ev.Err = err
		}
		p.cfg.OnPoll(ev)
	}
	if fin != nil {
		j.w.Done(*fin)
	}
}

// jobQueue is a min-heap of jobs by due time.
type jobQueue []*job

func (q jobQueue) Len() int           { return len(q) }
func (q jobQueue) Less(a, b int) bool { return q[a].due.Before(q[b].due) }
func (q jobQueue) Swap(a, b int) {
	q[a], q[b] = q[b], q[a]
	q[a].index, q[b].index = a, b
}

func (q *jobQueue) Push(x any) {
	j := x.(*job)
	j.index = len(*q)
	*q = append(*q, j)
}

func (q *jobQueue) Pop() any {
	old := *q
	j := old[len(old)-1]
	old[len(old)-1] = nil
	j.index = -1
	*q = old[:len(old)-1]
	return j
}
