package terminals

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Clock tells the time and makes timers: the wall clock in production, a
// ManualClock in tests so that polling schedules and budgets are checked
// without sleeping.
type Clock interface {
	Now() time.Time
	// NewTimerAt returns a timer that fires when the clock reaches
	// deadline (at once when it has). Deadlines are absolute so that a
	// clock moved while a timer is being made cannot delay it.
	NewTimerAt(deadline time.Time) Timer
}

// Timer fires once on C after its duration, unless stopped.
type Timer interface {
	C() <-chan time.Time
	// Stop prevents the timer from firing; it reports whether it did.
	Stop() bool
}

// SystemClock is the wall clock.
type SystemClock struct{}

// Now returns the current time.
func (SystemClock) Now() time.Time { return time.Now() }

// NewTimerAt returns a timer of the time package.
func (SystemClock) NewTimerAt(deadline time.Time) Timer {
	return systemTimer{time.NewTimer(time.Until(deadline))}
}

type systemTimer struct{ t *time.Timer }

func (s systemTimer) C() <-chan time.Time { return s.t.C }
func (s systemTimer) Stop() bool          { return s.t.Stop() }

// sleep waits for d on clock, or until ctx ends.
func sleep(ctx context.Context, clock Clock, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := clock.NewTimerAt(clock.Now().Add(d))
	defer t.Stop()
	select {
	case <-t.C():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ManualClock is a Clock that moves only when told to, for tests of the
// client, the Poller and their callers. It also satisfies the sandbox's
// clock (Now), so one ManualClock can drive both sides of a test. It is safe
// for concurrent use.
type ManualClock struct {
	mu      sync.Mutex
	now     time.Time
	timers  []*manualTimer
	changed chan struct{} // closed and replaced whenever a timer is armed
}

// NewManualClock returns a clock that reads t0 until it is advanced.
func NewManualClock(t0 time.Time) *ManualClock {
	return &ManualClock{now: t0, changed: make(chan struct{})}
}

// Now returns the clock's reading.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// NewTimerAt returns a timer that fires when the clock reaches deadline.
func (c *ManualClock) NewTimerAt(deadline time.Time) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &manualTimer{clock: c, at: deadline, ch: make(chan time.Time, 1)}
	if !deadline.After(c.now) {
		t.ch <- c.now
		return t
	}
	c.timers = append(c.timers, t)
	close(c.changed)
	c.changed = make(chan struct{})
	return t
}

// Advance moves the clock forward by d and fires the timers due by then.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.timers = slices.DeleteFunc(c.timers, func(t *manualTimer) bool {
		if t.at.After(c.now) {
			return false
		}
		t.ch <- c.now
		return true
	})
}

// Timers returns how many timers are armed (made, not yet fired nor
// stopped).
func (c *ManualClock) Timers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// WaitForTimers blocks until at least n timers are armed, or ctx ends. A
// test calls it to know that the code under test is waiting on the clock
// before it advances the clock.
func (c *ManualClock) WaitForTimers(ctx context.Context, n int) error {
	for {
		c.mu.Lock()
		armed, changed := len(c.timers), c.changed
		c.mu.Unlock()
		if armed >= n {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

type manualTimer struct {
	clock *ManualClock
	at    time.Time
	ch    chan time.Time
}

func (t *manualTimer) C() <-chan time.Time { return t.ch }

func (t *manualTimer) Stop() bool {
	c := t.clock
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(c.timers)
	c.timers = slices.DeleteFunc(c.timers, func(x *manualTimer) bool { return x == t })
	return len(c.timers) < n
}
