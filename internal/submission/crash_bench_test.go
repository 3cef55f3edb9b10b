package submission_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/testutil/cputime"
	"github.com/payportal/portal/internal/testutil/portalproc"
)

// recoveryApplications are the pushes in flight when BenchmarkCrashRecovery
// kills the portal, as many as in the report of issue 15.
const recoveryApplications = 12

// BenchmarkCrashRecovery measures how long pushes stay stranded after a crash
// with the default settings (job lease 15 s, swept every 5 s, workers polling
// every second). Each round runs `portal serve` as a child process against a
// sandbox answering after 150 ms, kills it with SIGKILL while its twelve
// pushes are on their way, starts it again at once, and times from the kill
// until every stranded push runs again (its job is worked in a new attempt)
// and until every application is linked. It also checks that each push made
// one upstream application and sent every document whole. Run with
// -benchtime 3x (one round per iteration).
func BenchmarkCrashRecovery(b *testing.B) {
	var reclaimed, linked []float64
	load := cputime.LoadAverage()
	for i := 0; b.Loop(); i++ {
		c := newCrashEnv(b, nil)
		ids := c.submitAll(b, recoveryApplications, crashDocuments)
		first := portalproc.Start(b, c.bin, c.vars)
		c.waitUntilMidPush(b, ids)
		first.Kill(b)
		killed := time.Now()
		stranded := c.unlinkedIDs(b, ids)
		second := portalproc.Start(b, c.bin, c.vars)
		r := c.waitReclaimed(b, stranded, 2*time.Minute)
		c.waitAllLinked(b, ids, 2*time.Minute)
		l := time.Since(killed)
		second.Kill(b)
		c.assertPushedOnce(b, ids)
		reclaimed = append(reclaimed, r.Sub(killed).Seconds())
		linked = append(linked, l.Seconds())
		b.Logf("round %d: %d of %d pushes stranded; all running again %.1f s after the kill, all linked after %.1f s",
			i+1, len(stranded), len(ids), reclaimed[i], linked[i])
	}
	b.Logf("load average before: %s; after: %s", load, cputime.LoadAverage())
	b.ReportMetric(median(reclaimed), "reclaimed-s")
	b.ReportMetric(slices.Max(reclaimed), "reclaimed-max-s")
	b.ReportMetric(median(linked), "linked-s")
	b.ReportMetric(slices.Max(linked), "linked-max-s")
	b.ReportMetric(0, "ns/op")
}

// unlinkedIDs lists the applications not linked yet.
func (c *crashEnv) unlinkedIDs(t testing.TB, ids []uuid.UUID) []uuid.UUID {
	t.Helper()
	var out []uuid.UUID
	for _, id := range ids {
		if c.load(t, id).LinkedAt == nil {
			out = append(out, id)
		}
	}
	return out
}

// waitReclaimed waits until the push job of every application in ids is in
// a later attempt than the one the kill interrupted, or done, and returns
// when that was first seen.
func (c *crashEnv) waitReclaimed(t testing.TB, ids []uuid.UUID, timeout time.Duration) time.Time {
	t.Helper()
	want := make([]string, len(ids))
	for i, id := range ids {
		want[i] = id.String()
	}
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		var n int
		err := c.db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM river_job
			WHERE kind = 'application_push' AND args->>'application_id' = ANY($1) AND (attempt >= 2 OR state = 'completed')`, want).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n == len(ids) {
			return time.Now()
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d stranded pushes running again after %s", n, len(ids), timeout)
		}
		<-tick.C
	}
}
