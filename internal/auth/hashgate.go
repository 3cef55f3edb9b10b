package auth

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/payportal/portal/internal/apperr"
)

// hashGate bounds the password hashes computed at once. Each argon2id hash
// holds 19 MiB for about 20 ms, so without a bound a burst of sign-ins (from
// anyone, since the sign-in page is public) takes memory without limit. It
// is shared fairly: one client address holds at most half of the slots.
type hashGate struct {
	slots  chan struct{}
	perIP  int
	mu     sync.Mutex
	byIP   map[string]int
	onHash func() // test hook: called while a slot is held
}

// ErrBusy answers a sign-in that found every hashing slot taken. It is
// answered at once, without hashing, with a short Retry-After.
type ErrBusy struct {
	// PerAddress is true when this client address holds its share already.
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

// newHashGate allows n hashes at once (n < 1: the number of CPUs).
func newHashGate(n int) *hashGate {
	if n < 1 {
		n = runtime.GOMAXPROCS(0)
	}
	return &hashGate{slots: make(chan struct{}, n), perIP: max(1, n/2), byIP: map[string]int{}}
}

// try takes a slot for ip without waiting, or returns *ErrBusy.
func (g *hashGate) try(ip string) (release func(), err error) {
	g.mu.Lock()
	if g.byIP[ip] >= g.perIP {
		g.mu.Unlock()
		return nil, &ErrBusy{PerAddress: true}
	}
	select {
	case g.slots <- struct{}{}:
	default:
		g.mu.Unlock()
		return nil, &ErrBusy{}
	}
	g.byIP[ip]++
	g.mu.Unlock()
	return func() { g.release(ip) }, nil
}

// wait takes a slot, waiting for one, for hashes of signed-in users and
// invitations (not anonymous bursts).
func (g *hashGate) wait(ctx context.Context) (release func(), err error) {
	select {
	case g.slots <- struct{}{}:
		return func() { <-g.slots }, nil
	case <-ctx.Done():
		return nil, apperr.New(apperr.KindUnavailable, "The portal is busy. Try again in a moment.")
	}
}

func (g *hashGate) release(ip string) {
	g.mu.Lock()
	if g.byIP[ip]--; g.byIP[ip] <= 0 {
		delete(g.byIP, ip)
	}
	g.mu.Unlock()
	<-g.slots
}
