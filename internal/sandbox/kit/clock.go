package kit

import (
	"slices"
	"sync"
	"time"
)

// Clock tells the sandbox what time it is. A ManualClock lets tests and
// rehearsals cross the 120-second URL expiry, the 25-minute void window or a
// settlement cut-off without waiting.
type Clock interface {
	Now() time.Time
}

// SystemClock is the wall clock.
type SystemClock struct{}

// Now returns the current wall-clock time.
func (SystemClock) Now() time.Time { return time.Now() }

// ManualClock is a Clock that moves only when told to. It is safe for
// concurrent use.
type ManualClock struct {
	mu        sync.Mutex
	now       time.Time
	listeners map[int]func()
	nextID    int
}

// NewManualClock returns a clock that reads t0 until it is advanced.
func NewManualClock(t0 time.Time) *ManualClock {
	return &ManualClock{now: t0}
}

// Now returns the clock's current reading.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d, then tells the listeners (see
// OnChange) before it returns.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
	c.notify()
}

// Set moves the clock to t, then tells the listeners before it returns.
func (c *ManualClock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
	c.notify()
}

// OnChange calls fn after every Advance or Set, in the goroutine that moved
// the clock, so that whatever falls due (an underwriting decision, a webhook
// retry, a settlement cut-off) has happened when Advance returns. cancel
// stops the calls.
func (c *ManualClock) OnChange(fn func()) (cancel func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.listeners == nil {
		c.listeners = map[int]func(){}
	}
	id := c.nextID
	c.nextID++
	c.listeners[id] = fn
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(c.listeners, id)
	}
}

// notify calls the listeners, in the order they subscribed, without the lock
// held so that they may read the clock.
func (c *ManualClock) notify() {
	c.mu.Lock()
	ids := make([]int, 0, len(c.listeners))
	for id := range c.listeners {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	fns := make([]func(), 0, len(ids))
	for _, id := range ids {
		fns = append(fns, c.listeners[id])
	}
	c.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}
