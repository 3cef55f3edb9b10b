package jobs

import (
	"math/rand/v2"
	"time"

	"github.com/riverqueue/river/rivertype"
)

// maxRetryDelay caps the growth of DefaultRetryDelay.
const maxRetryDelay = 6 * time.Hour

// minRetryDelay keeps a retry strictly in the future: River replaces a next
// attempt time that is already past with its own policy.
const minRetryDelay = 10 * time.Millisecond

// DefaultRetryDelay waits attempt⁴ seconds (1 s, 16 s, 81 s, 4 min, 10 min,
// 22 min, ...) plus up to 10% jitter, so that failures caused by one outage do
// not all retry in the same instant, capped at six hours.
func DefaultRetryDelay(attempt int) time.Duration {
	// Past 100 attempts the cap applies anyway; clamping keeps the product from overflowing.
	attempt = min(max(attempt, 1), 100)
	a := time.Duration(attempt)
	base := a * a * a * a * time.Second
	if base > maxRetryDelay {
		base = maxRetryDelay
	}
	return base + time.Duration(rand.Int64N(int64(base/10)+1))
}

// retryPolicy schedules a failed job's next attempt with the queue's delay.
type retryPolicy struct {
	delay func(attempt int) time.Duration
}

// NextRetry implements river.ClientRetryPolicy.
func (p retryPolicy) NextRetry(job *rivertype.JobRow) time.Time {
	return time.Now().UTC().Add(max(p.delay(job.Attempt), minRetryDelay))
}
