package kit

import (
	"sync/atomic"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// TestAlarmOnManualClock: the alarm fires inside Advance once the time is
// reached, keeps the earliest setting, and fires no more after Close.
func TestAlarmOnManualClock(t *testing.T) {
	c := NewManualClock(t0)
	var fired atomic.Int32
	var at atomic.Value
	a := NewAlarm(c, func(now time.Time) { fired.Add(1); at.Store(now) })
	a.Set(t0.Add(time.Minute))
	a.Set(t0.Add(time.Hour)) // later: ignored
	c.Advance(59 * time.Second)
	if fired.Load() != 0 {
		t.Fatal("fired before its time")
	}
	c.Advance(time.Second)
	if fired.Load() != 1 || !at.Load().(time.Time).Equal(t0.Add(time.Minute)) {
		t.Fatalf("fired %d times at %v, want once at t0+1m", fired.Load(), at.Load())
	}
	c.Advance(time.Hour)
	if fired.Load() != 1 {
		t.Errorf("fired again without being set")
	}
	a.Set(t0.Add(3 * time.Hour))
	a.Close()
	c.Advance(time.Hour)
	if fired.Load() != 1 {
		t.Errorf("fired after Close")
	}
}

// TestAlarmDueNowFiresInItsOwnGoroutine: a time already reached fires
// without a clock move, so work planned "now" does not wait.
func TestAlarmDueNowFiresInItsOwnGoroutine(t *testing.T) {
	c := NewManualClock(t0)
	done := make(chan struct{})
	a := NewAlarm(c, func(time.Time) { close(done) })
	defer a.Close()
	a.Set(t0)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("an alarm due now did not fire")
	}
}

// TestAlarmOnWallClock fires through a timer.
func TestAlarmOnWallClock(t *testing.T) {
	done := make(chan struct{})
	a := NewAlarm(SystemClock{}, func(time.Time) { close(done) })
	defer a.Close()
	a.Set(time.Now().Add(10 * time.Millisecond))
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the wall-clock alarm did not fire")
	}
}

func TestManualClockListeners(t *testing.T) {
	c := NewManualClock(t0)
	var order []int
	cancel := c.OnChange(func() { order = append(order, 1) })
	c.OnChange(func() { order = append(order, 2) })
	c.Set(t0.Add(time.Hour))
	cancel()
	c.Advance(time.Minute)
	if len(order) != 3 || order[0] != 1 || order[1] != 2 || order[2] != 2 {
		t.Errorf("listener calls = %v, want [1 2 2]", order)
	}
}
