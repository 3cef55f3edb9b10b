package audit_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// An entry keeps its outcome (success unless told) and the client address: the one
// given, else the one the request's context carries; never a value that is not an
// address. The three writers agree.
func TestRecordKeepsOutcomeAndClientAddress(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := audit.WithClientAddress(context.Background(), "203.0.113.7")
	subject := audit.User(uuid.New())
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(audit.Record(ctx, db.Pool, audit.Event{Subject: subject, Action: "a1", At: at}))
	must(audit.Record(ctx, db.Pool, audit.Event{Subject: subject, Action: "a2", At: at, Outcome: audit.Failed, ClientAddress: "2001:db8::1"}))
	must(audit.Record(context.Background(), db.Pool, audit.Event{Subject: subject, Action: "a3", At: at, ClientAddress: "not an address"}))
	must(audit.RecordAll(ctx, db.Pool, audit.Event{Subject: subject, Action: "a4", At: at, Outcome: audit.Failed}))
	tx, err := db.Pool.Begin(ctx)
	must(err)
	must(audit.RecordMany(ctx, tx, []audit.Event{{Subject: subject, Action: "a5", At: at, ClientAddress: "::ffff:198.51.100.2"}}))
	must(tx.Commit(ctx))

	rows, err := db.Pool.Query(ctx, `SELECT action || ' ' || outcome || ' ' || coalesce(host(client_address), '-') FROM audit_events
		WHERE subject_id = $1 ORDER BY id`, subject.ID)
	must(err)
	defer rows.Close()
	var got []string
	for rows.Next() {
		var s string
		must(rows.Scan(&s))
		got = append(got, s)
	}
	want := "a1 success 203.0.113.7|a2 failure 2001:db8::1|a3 success -|a4 failure 203.0.113.7|a5 success 198.51.100.2"
	if strings.Join(got, "|") != want {
		t.Fatalf("entries\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
}

// The trail is append-only (PCI DSS 10.3.2): UPDATE, DELETE and TRUNCATE are refused,
// even to the table's owner (the tests' role owns the table and is a superuser), and
// the entry is left as it was.
func TestAuditTrailRefusesUpdateAndDelete(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	subject := audit.User(uuid.New())
	if err := audit.Record(ctx, db.Pool, audit.Event{Subject: subject, Action: "password_changed", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	var owner bool
	if err := db.Pool.QueryRow(ctx, `SELECT tableowner = current_user FROM pg_tables WHERE tablename = 'audit_events'`).Scan(&owner); err != nil || !owner {
		t.Fatalf("the test does not run as the table's owner (%v)", err)
	}
	for _, stmt := range []string{
		`UPDATE audit_events SET action = 'nothing_happened' WHERE subject_id = '` + subject.ID.String() + `'`,
		`UPDATE audit_events SET actor_id = NULL`,
		`DELETE FROM audit_events WHERE subject_id = '` + subject.ID.String() + `'`,
		`DELETE FROM audit_events`,
		`TRUNCATE audit_events`,
	} {
		_, err := db.Pool.Exec(ctx, stmt)
		if err == nil || !strings.Contains(err.Error(), "audit_events is append-only") {
			t.Errorf("%s: %v", stmt, err)
		}
	}
	var action string
	if err := db.Pool.QueryRow(ctx, `SELECT action FROM audit_events WHERE subject_id = $1`, subject.ID).Scan(&action); err != nil || action != "password_changed" {
		t.Fatalf("the entry became %q (%v)", action, err)
	}
}
