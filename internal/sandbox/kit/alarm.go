package kit

import (
	"sync"
	"time"
)

// Alarm calls a function when the sandbox clock reaches a time: the next
// underwriting decision, webhook retry, settlement cut-off or cardholder
// answer of an area. An area keeps its due work in its own buckets, so it
// survives a restart, and sets the alarm to the earliest due time; when the
// alarm fires the area does what is due and sets the alarm again.
//
// On a ManualClock the alarm fires inside Advance or Set, in the goroutine
// that moved the clock, so a test or an admin that advances the clock sees
// the due work done when Advance returns. On any other clock a timer waits
// for the wall-clock difference. Fire calls never overlap.
type Alarm struct {
	clock  Clock
	fire   func(now time.Time)
	firing sync.Mutex // serialises fire calls

	mu     sync.Mutex
	at     time.Time // zero: not set
	timer  *time.Timer
	cancel func() // unsubscribes from a manual clock
	closed bool
}

// NewAlarm returns an alarm, not set, that calls fire with the clock's
// reading when it goes off.
func NewAlarm(c Clock, fire func(now time.Time)) *Alarm {
	a := &Alarm{clock: c, fire: fire}
	if mc, ok := c.(*ManualClock); ok {
		a.cancel = mc.OnChange(a.check)
	}
	return a
}

// Set asks for a call at t, unless the alarm is already set earlier. A time
// already reached fires soon, in a goroutine of its own (the caller may hold
// locks that fire needs).
func (a *Alarm) Set(t time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed || (!a.at.IsZero() && !t.Before(a.at)) {
		return
	}
	a.at = t
	if a.timer != nil {
		a.timer.Stop()
		a.timer = nil
	}
	wait := t.Sub(a.clock.Now())
	switch {
	case wait <= 0:
		go a.run()
	case a.cancel == nil:
		a.timer = time.AfterFunc(wait, a.run)
	}
}

// check fires the alarm in the caller's goroutine when a manual clock has
// reached the time set.
func (a *Alarm) check() {
	a.mu.Lock()
	due := !a.closed && !a.at.IsZero() && !a.clock.Now().Before(a.at)
	a.mu.Unlock()
	if due {
		a.run()
	}
}

// run clears the setting and calls fire; fire sets the alarm again when
// more work is due later.
func (a *Alarm) run() {
	a.firing.Lock()
	defer a.firing.Unlock()
	a.mu.Lock()
	if a.closed || a.at.IsZero() {
		a.mu.Unlock()
		return
	}
	a.at = time.Time{}
	a.timer = nil
	a.mu.Unlock()
	a.fire(a.clock.Now())
}

// Close stops the alarm and waits for a fire in progress to end.
func (a *Alarm) Close() {
	a.mu.Lock()
	a.closed = true
	if a.timer != nil {
		a.timer.Stop()
	}
	if a.cancel != nil {
		a.cancel()
	}
	a.mu.Unlock()
	a.firing.Lock()
	defer a.firing.Unlock()
}
