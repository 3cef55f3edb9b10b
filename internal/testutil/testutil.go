// Package testutil holds what tests of every room share; its subpackages start the
// portal (apptest), a database (testdb), a browser (browser), an S3 server, an SMTP
// server and make test files.
package testutil

import (
	"testing"
	"time"
)

// pollEvery is how often Eventually asks again: short enough that a test waits
// little past the moment its condition holds, long enough not to busy the database.
const pollEvery = 20 * time.Millisecond

// Eventually waits until cond holds, asking every 20 ms, and fails the test with
// what (and the last word of cond, if it says one) when it still does not after
// timeout. Use it to wait for background work: a job, a webhook, an e-mail. It is
// not a clock: code under test reads an injected clock, never this one.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	deadline := time.After(timeout)
	for {
		ok, last := cond()
		if ok {
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			if last != "" {
				t.Fatalf("waited %s for %s: %s", timeout, what, last)
			}
			t.Fatalf("waited %s for %s", timeout, what)
		}
	}
}
