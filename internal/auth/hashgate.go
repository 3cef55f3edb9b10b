package auth

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/payportal/portal/internal/apperr"
)

// Defaults of the hashing gate's queue.
const (
	// DefaultHashWait bounds how long a sign-in waits for a hashing slot
	// before it is answered 503 with Retry-After. A burst of 64 sign-ins on
	// two cores is hashed in well under it (about 20 ms of CPU each).
	DefaultHashWait = 5 * time.Second
	// DefaultHashQueue bounds the sign-ins waiting for a slot at once.
	DefaultHashQueue = 128
)

// hashGate bounds the password hashes computed at once. Each argon2id hash
// holds 19 MiB for about 20 ms, so without a bound a burst of sign-ins (from
// anyone, since the sign-in page is public) takes memory without limit.
//
// A sign-in finding every slot taken waits in a short queue, for a bounded
// time. The gate is work-conserving: a slot freed goes at once to whoever
// waits, and one address alone may use every slot. It is fair only under
// contention: each client address has a queue of its own and freed slots go
// round the addresses in turn, so an office behind one address cannot starve
// the others; and when the queue is full, the address holding most of it
// gives up its latest waiter to a newcomer from another address.
type hashGate struct {
	mu       sync.Mutex
	slots    int // hashes allowed at once
	busy     int // slots taken
	maxQueue int
	maxWait  time.Duration
	// queues holds each address's waiters, oldest first; turns lists the
	// addresses with waiters in the order they are next served.
	queues  map[string][]*hashWaiter
	turns   []string
	waiting int
	// timer starts the bound of one wait (tests inject a clock).
	timer func(time.Duration) (<-chan time.Time, func() bool)
	// Test hooks: onWait is called when a request joins the queue, onHash
	// while a slot is held.
	onWait func(ip string)
	onHash func()
}

// hashWaiter is one request in the queue. done is closed when it is given
// a slot (err nil) or turned away (err set).
type hashWaiter struct {
	ip   string
	done chan struct{}
	err  error
}

// ErrBusy answers a sign-in that found no hashing slot within the bounded
// wait, or no room in the queue. It is answered with a short Retry-After.
type ErrBusy struct {
	// PerAddress is true when this client address holds the largest share
	// of the queue.
	PerAddress bool
}

func (e *ErrBusy) Error() string {
	if e.PerAddress {
		return "Too many sign-ins from your network at once. Try again in a moment."
	}
	return "The portal is busy signing people in. Try again in a moment."
}

// RetryAfter is how long to wait before trying again.
func (e *ErrBusy) RetryAfter() time.Duration { return time.Second }

// hashGateOptions size the gate; zero values take the defaults.
type hashGateOptions struct {
	Slots    int // < 1: the number of CPUs
	MaxQueue int
	MaxWait  time.Duration
}

// newHashGate returns a gate allowing o.Slots hashes at once.
func newHashGate(o hashGateOptions) *hashGate {
	if o.Slots < 1 {
		o.Slots = runtime.GOMAXPROCS(0)
	}
	if o.MaxQueue < 1 {
		o.MaxQueue = DefaultHashQueue
	}
	if o.MaxWait <= 0 {
		o.MaxWait = DefaultHashWait
	}
	return &hashGate{slots: o.Slots, maxQueue: o.MaxQueue, maxWait: o.MaxWait, queues: map[string][]*hashWaiter{},
		timer: func(d time.Duration) (<-chan time.Time, func() bool) {
			t := time.NewTimer(d)
			return t.C, t.Stop
		}}
}

// acquire takes a slot for ip, waiting in ip's queue for at most the gate's
// bound. waited says whether it had to wait (the caller then checks again
// what may have changed meanwhile). The error is *ErrBusy, or ctx's.
func (g *hashGate) acquire(ctx context.Context, ip string) (release func(), waited bool, err error) {
	g.mu.Lock()
	if g.busy < g.slots && g.waiting == 0 {
		g.busy++
		g.mu.Unlock()
		return g.release, false, nil
	}
	w, err := g.enqueue(ip)
	g.mu.Unlock()
	if err != nil {
		return nil, false, err
	}
	if g.onWait != nil {
		g.onWait(ip)
	}
	expired, stop := g.timer(g.maxWait)
	defer stop()
	select {
	case <-w.done:
	case <-expired:
		g.leave(w, &ErrBusy{})
	case <-ctx.Done():
		g.leave(w, ctx.Err())
	}
	if w.err != nil {
		return nil, true, w.err
	}
	return g.release, true, nil
}

// enqueue adds a waiter for ip, making room when the queue is full by
// turning away the latest waiter of the address holding the most, unless
// that is ip itself. Called with g.mu held.
func (g *hashGate) enqueue(ip string) (*hashWaiter, error) {
	if g.waiting >= g.maxQueue {
		largest := g.largestQueue()
		if len(g.queues[largest]) <= len(g.queues[ip])+1 {
			return nil, &ErrBusy{PerAddress: len(g.queues[ip]) == len(g.queues[largest])}
		}
		q := g.queues[largest]
		g.remove(q[len(q)-1], &ErrBusy{PerAddress: true})
	}
	w := &hashWaiter{ip: ip, done: make(chan struct{})}
	if len(g.queues[ip]) == 0 {
		g.turns = append(g.turns, ip)
	}
	g.queues[ip] = append(g.queues[ip], w)
	g.waiting++
	return w, nil
}

// largestQueue names the address with the most waiters (the earliest in
// turn among equals). Called with g.mu held.
func (g *hashGate) largestQueue() string {
	largest := ""
	for _, ip := range g.turns {
		if len(g.queues[ip]) > len(g.queues[largest]) {
			largest = ip
		}
	}
	return largest
}

// leave takes w out of the queue after its wait ended with err, unless it
// was given a slot or turned away in the meantime.
func (g *hashGate) leave(w *hashWaiter, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-w.done:
		return
	default:
	}
	g.remove(w, err)
}

// remove takes w out of its address's queue and ends its wait with err
// (nil: it got a slot). Called with g.mu held.
func (g *hashGate) remove(w *hashWaiter, err error) {
	q := g.queues[w.ip]
	for i, other := range q {
		if other == w {
			q = append(q[:i], q[i+1:]...)
			break
		}
	}
	if len(q) == 0 {
		delete(g.queues, w.ip)
		g.dropTurn(w.ip)
	} else {
		g.queues[w.ip] = q
	}
	g.waiting--
	w.err = err
	close(w.done)
}

// dropTurn removes ip from the turns. Called with g.mu held.
func (g *hashGate) dropTurn(ip string) {
	for i, t := range g.turns {
		if t == ip {
			g.turns = append(g.turns[:i], g.turns[i+1:]...)
			return
		}
	}
}

// release frees a slot: it goes at once to the oldest waiter of the address
// whose turn it is, and that address goes to the back of the turns.
func (g *hashGate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.waiting == 0 {
		g.busy--
		return
	}
	ip := g.turns[0]
	g.remove(g.queues[ip][0], nil)
	if len(g.queues[ip]) > 0 {
		g.dropTurn(ip)
		g.turns = append(g.turns, ip)
	}
}

// signedInKey is the queue of hashes for signed-in users and invitations:
// one queue of its own, so it takes its turn beside the addresses.
const signedInKey = "\x00signed-in"

// wait takes a slot for a signed-in user's or an invited user's hash.
func (g *hashGate) wait(ctx context.Context) (release func(), err error) {
	release, _, err = g.acquire(ctx, signedInKey)
	if err != nil {
		return nil, apperr.New(apperr.KindUnavailable, "The portal is busy. Try again in a moment.")
	}
	return release, nil
}
