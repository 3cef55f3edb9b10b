package payments

import (
	"sync"
	"time"
)

// limiter is a token bucket per account on the wall clock: each account
// may send limit requests per window, refilled continuously.
type limiter struct {
	limit  float64
	window time.Duration
	now    func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newLimiter(limit int, window time.Duration, now func() time.Time) *limiter {
	return &limiter{limit: float64(limit), window: window, now: now, buckets: map[string]*bucket{}}
}

// take spends one request of key's budget. It returns 0 when allowed, or
// how long until the next request will be.
func (l *limiter) take(key string) time.Duration {
	if l.limit < 0 {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b, ok := l.buckets[key]
	if !ok {
		b = &bucket{tokens: l.limit, at: now}
		l.buckets[key] = b
	}
	rate := l.limit / float64(l.window) // tokens per nanosecond
	if el := now.Sub(b.at); el > 0 {
		b.tokens = min(l.limit, b.tokens+float64(el)*rate)
	}
	b.at = now
	if b.tokens >= 1 {
		b.tokens--
		return 0
	}
	return time.Duration((1 - b.tokens) / rate)
}
