package webhooks

import "time"

// RetryWindow is how long a delivery is tried: three days from its first attempt. An
// endpoint whose attempts have all failed for that long is disabled.
const RetryWindow = 72 * time.Hour

// retryDelays are the waits after each failed attempt: Standard Webhooks' schedule
// (5 s, 5 min, 30 min, 2 h, 5 h, 10 h), then every 10 hours, the last wait shortened so
// the final attempt comes exactly RetryWindow after the first.
var retryDelays = func() []time.Duration {
	delays := []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour}
	var sum time.Duration
	for _, d := range delays {
		sum += d
	}
	for sum+10*time.Hour < RetryWindow {
		delays = append(delays, 10*time.Hour)
		sum += 10 * time.Hour
	}
	return append(delays, RetryWindow-sum)
}()

// MaxAttempts is how many times one delivery is tried (13: the first, and one after
// each wait of the schedule).
var MaxAttempts = len(retryDelays) + 1

// RetryDelay is the wait after failed attempt number attempt (from 1).
func RetryDelay(attempt int) time.Duration {
	return retryDelays[min(max(attempt, 1), len(retryDelays))-1]
}
