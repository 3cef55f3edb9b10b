package jobs_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"

	"github.com/payportal/portal/internal/jobs"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// riverVersion is the River release the sweeper was checked against; go.mod pins every
// River module to it. An upgrade changes it here, after the tests below pass.
const riverVersion = "v0.51.1"

// The sweeper (Queue.Sweep) relies on River beyond its versioned API: this file holds
// what it relies on, so that an upgrade that changes it fails here rather than in
// production, where a dead process's jobs would stay running.

// Every River module is the pinned release: riverdriver is versioned with River, never
// on its own. go.mod (tidy, as make lint checks) names the version of every module the
// build uses.
func TestRiverIsThePinnedVersion(t *testing.T) {
	raw, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || !strings.HasPrefix(f[0], "github.com/riverqueue/river") {
			continue
		}
		seen++
		if f[1] != riverVersion {
			t.Errorf("go.mod requires %s %s; the sweeper was checked against %s: run the River contract tests and update riverVersion",
				f[0], f[1], riverVersion)
		}
	}
	if seen < 3 {
		t.Errorf("go.mod names %d River modules, want river, riverdriver and rivertype at least", seen)
	}
	if strings.Contains(string(raw), "replace github.com/riverqueue") {
		t.Error("go.mod replaces a River module: the pin no longer says what is built")
	}
}

// The reason for riverdriver: River's public JobRetry does not touch a running job. If
// this fails, River now hands running jobs back itself: use JobRetry in Sweep instead.
func TestRiverJobRetryLeavesARunningJobAlone(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	q := newQueue(t, db, jobs.Config{}, &pingWorker{})
	id := insertPing(t, q, 1)
	setRunning(t, db.Pool, id, 1, time.Minute)
	row, err := q.Client().JobRetry(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if row.State != rivertype.JobStateRunning || jobState(t, db, id) != "running" {
		t.Errorf("JobRetry moved a running job: %s", row.State)
	}
}

// What Sweep asks of riverdriver's JobRescueMany: a running job whose attempt started
// before the horizon takes the state, error, scheduled time and finalized time given;
// one started at or after the horizon (a later attempt), and one no longer running, are
// left alone.
func TestRiverJobRescueManyMovesOnlyTheStuckAttempt(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	q := newQueue(t, db, jobs.Config{}, &pingWorker{})
	again, last, later, done := insertPing(t, q, 1), insertPing(t, q, 2), insertPing(t, q, 3), insertPing(t, q, 4)
	for _, id := range []int64{again, last, later} {
		setRunning(t, db.Pool, id, 1, time.Minute)
	}
	if _, err := db.Pool.Exec(ctx, `UPDATE river_job SET attempted_at = now() + interval '1 minute' WHERE id = $1`, later); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `UPDATE river_job SET state = 'completed', finalized_at = now() WHERE id = $1`, done); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	reason, _ := json.Marshal(rivertype.AttemptError{At: now, Attempt: 1, Error: "handed back"})
	exec := q.Client().Driver().GetExecutor()
	_, err := exec.JobRescueMany(ctx, &riverdriver.JobRescueManyParams{
		ID:          []int64{again, last, later, done},
		Error:       [][]byte{reason, reason, reason, reason},
		FinalizedAt: []*time.Time{nil, &now, nil, nil},
		ScheduledAt: []time.Time{now, now, now, now},
		State: []string{string(rivertype.JobStateAvailable), string(rivertype.JobStateDiscarded),
			string(rivertype.JobStateAvailable), string(rivertype.JobStateAvailable)},
		StuckHorizon: now.Add(time.Second),
	})
	if err != nil {
		t.Fatal(err)
	}
	get := func(id int64) *rivertype.JobRow {
		t.Helper()
		row, err := q.Client().JobGet(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return row
	}
	if r := get(again); r.State != rivertype.JobStateAvailable || r.FinalizedAt != nil || !r.ScheduledAt.Equal(now) ||
		len(r.Errors) != 1 || r.Errors[0].Error != "handed back" || r.Errors[0].Attempt != 1 {
		t.Errorf("job with attempts left: %s, finalized %v, scheduled %v, errors %+v", r.State, r.FinalizedAt, r.ScheduledAt, r.Errors)
	}
	if r := get(last); r.State != rivertype.JobStateDiscarded || r.FinalizedAt == nil || !r.FinalizedAt.Equal(now) || len(r.Errors) != 1 {
		t.Errorf("job without attempts left: %s, finalized %v, errors %d", r.State, r.FinalizedAt, len(r.Errors))
	}
	if r := get(later); r.State != rivertype.JobStateRunning || len(r.Errors) != 0 {
		t.Errorf("an attempt started after the horizon was moved: %s", r.State)
	}
	if r := get(done); r.State != rivertype.JobStateCompleted || len(r.Errors) != 0 {
		t.Errorf("a finished job was moved: %s", r.State)
	}
}

// insertPing enqueues a ping job and returns its id.
func insertPing(t *testing.T, q *jobs.Queue, n int) int64 {
	t.Helper()
	res, err := q.Insert(context.Background(), pingArgs{N: n}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Job.ID
}

// setRunning marks a job as running its attempt, started ago, by a process that is gone.
func setRunning(t *testing.T, pool *pgxpool.Pool, id int64, attempt int, ago time.Duration) {
	t.Helper()
	_, err := pool.Exec(context.Background(), `UPDATE river_job SET state = 'running', attempt = $2,
		attempted_at = now() - $3 * interval '1 microsecond', attempted_by = ARRAY['gone'] WHERE id = $1`, id, attempt, ago.Microseconds())
	if err != nil {
		t.Fatal(err)
	}
}
