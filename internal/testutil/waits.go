package testutil

import (
	"context"
	"sync"
	"time"
)

// Waits records the waits a client asks for between attempts instead of
// sleeping them: give its Sleep where a client takes a sleep function.
type Waits struct {
	mu    sync.Mutex
	waits []time.Duration
}

// Sleep records d and returns at once, with ctx's error when ctx has ended
// (as a real sleep would).
func (w *Waits) Sleep(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.waits = append(w.waits, d)
	return ctx.Err()
}

// All returns the waits recorded so far, in order.
func (w *Waits) All() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.waits...)
}
