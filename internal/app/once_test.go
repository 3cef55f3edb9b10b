package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/testutil/apptest"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// A database from before links were sealed has its clear hand-off links sealed
// once, by a job, and the task recorded done; a later start does not look
// through the applications again (a clear link written since, which only an
// old replica could write, stays as it is and still reads as itself).
func TestLegacyLinksAreSealedOnceNotAtEveryStart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, dbURL := testdb.NewWithURL(t)
	key := apptest.WithEnv("PORTAL_ENCRYPTION_KEYS", "k1:"+newKey())
	owner, first, later := uuid.New(), uuid.New(), uuid.New()
	for _, sql := range []string{
		`INSERT INTO users (id, email, role, password_hash) VALUES ('` + owner.String() + `', 'rep@example.com', 'sales_rep', 'x')`,
		// As before links were sealed: the database has never recorded the task.
		`DELETE FROM one_time_tasks WHERE name = 'seal_legacy_handoff_links'`,
	} {
		if _, err := db.Pool.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	insertLinked := func(id uuid.UUID) {
		t.Helper()
		if _, err := db.Pool.Exec(ctx, `INSERT INTO applications (id, owner_id, status, handoff_link) VALUES ($1, $2, 'linked', $3)`,
			id, owner, "https://upstream.example/apply/"+id.String()); err != nil {
			t.Fatal(err)
		}
	}
	link := func(id uuid.UUID) string {
		var l string
		if err := db.Pool.QueryRow(ctx, `SELECT handoff_link FROM applications WHERE id = $1`, id).Scan(&l); err != nil {
			t.Fatal(err)
		}
		return l
	}
	insertLinked(first)

	env := apptest.New(t, apptest.WithDatabaseURL(dbURL), key)
	testutil.Eventually(t, 30*time.Second, "the one-time task", func() (bool, string) {
		var changed int
		err := db.Pool.QueryRow(ctx, `SELECT changed FROM one_time_tasks WHERE name = 'seal_legacy_handoff_links'`).Scan(&changed)
		return err == nil && changed == 1, "not recorded"
	})
	if l := link(first); l == "https://upstream.example/apply/"+first.String() {
		t.Fatalf("hand-off link still in the clear after the task: %s", l)
	}
	a, err := env.App.Store.Get(ctx, nil, first)
	if err != nil {
		t.Fatal(err)
	}
	if l, err := env.App.Store.OpenHandoffLink(a); err != nil || l != "https://upstream.example/apply/"+first.String() {
		t.Fatalf("sealed link reads %q, %v", l, err)
	}

	insertLinked(later)
	again := apptest.New(t, apptest.WithDatabaseURL(dbURL), key)
	var jobs int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'one_time_tasks'`).Scan(&jobs); err != nil || jobs != 1 {
		t.Fatalf("one-time task jobs after the second start: %d, %v; want the first start's only", jobs, err)
	}
	if l := link(later); l != "https://upstream.example/apply/"+later.String() {
		t.Fatalf("the second start rewrote a link: %s", l)
	}
	b, err := again.App.Store.Get(ctx, nil, later)
	if err != nil {
		t.Fatal(err)
	}
	if l, err := again.App.Store.OpenHandoffLink(b); err != nil || l != "https://upstream.example/apply/"+later.String() {
		t.Fatalf("clear link reads %q, %v", l, err)
	}
}
