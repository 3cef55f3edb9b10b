package reminders_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payportal/portal/internal/reminders"
)

// A reminder, its tracked link, its delivery job and its record commit together. When
// the transaction fails at its last statement (the audit entry, refused here by a
// trigger, as a crash before the commit would leave it), nothing of the reminder
// remains: no message, no delivery job, no token, no claim. The next run sends it once,
// and the run after that sends nothing more.
func TestAReminderFailingBeforeItsCommitLeavesNothingAndGoesOutOnceLater(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	owner := rep(t, env, "rep")
	id := linked(t, env, owner, "Crashy Cakes")
	tokens := func() int {
		return count(t, env, `SELECT count(*) FROM handoff_open_tokens WHERE application_id = $1`, id)
	}
	deliveries := func() int {
		return count(t, env, `SELECT count(*) FROM river_job WHERE kind = 'mail_deliver'
			AND args->>'message_id' IN (SELECT id::text FROM mail_outbox WHERE application_id = $1)`, id)
	}
	tokensBefore := tokens()

	exec(t, env, `CREATE FUNCTION refuse_reminder_record() RETURNS trigger LANGUAGE plpgsql
		AS $$ BEGIN RAISE EXCEPTION 'the portal stops before the commit'; END $$`)
	exec(t, env, `CREATE TRIGGER refuse_reminder_record BEFORE INSERT ON audit_events
		FOR EACH ROW WHEN (NEW.action = 'reminder_sent') EXECUTE FUNCTION refuse_reminder_record()`)
	env.Clock.Advance(3 * day)
	got, err := env.App.Reminders.Run(context.Background())
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if got.Failed != 1 || got.Sent[reminders.KindNotOpened] != 0 {
		t.Fatalf("report %+v, want one failed reminder", got)
	}
	if n := len(outbox(t, env, "handoff_reminder")); n != 0 {
		t.Errorf("%d reminders left in the outbox by a failed transaction", n)
	}
	if n := deliveries(); n != 0 {
		t.Errorf("%d delivery jobs left by a failed transaction", n)
	}
	if n := tokens(); n != tokensBefore {
		t.Errorf("%d tracked links, want %d: the failed reminder's token was kept", n, tokensBefore)
	}
	if n := reminderCount(t, env, id, reminders.KindNotOpened); n != 0 {
		t.Errorf("%d reminders recorded as sent by a failed transaction", n)
	}

	// The portal is back: the next run sends the reminder, once, with everything.
	exec(t, env, `DROP TRIGGER refuse_reminder_record ON audit_events`)
	run(t, env)
	run(t, env)
	msgs := outbox(t, env, "handoff_reminder")
	if len(msgs) != 1 {
		t.Fatalf("%d reminders in the outbox, want 1", len(msgs))
	}
	if n := deliveries(); n != 1 {
		t.Errorf("%d delivery jobs, want 1", n)
	}
	if n := tokens(); n != tokensBefore+1 {
		t.Errorf("%d tracked links, want %d", n, tokensBefore+1)
	}
	if n := count(t, env, `SELECT count(*) FROM reminders_sent WHERE application_id = $1 AND message_id = $2`, id, msgs[0].ID); n != 1 {
		t.Errorf("%d records of the reminder naming its message, want 1", n)
	}
	if n := count(t, env, `SELECT count(*) FROM audit_events WHERE subject_id = $1 AND action = 'reminder_sent'
		AND details->>'message_id' = $2`, id, msgs[0].ID.String()); n != 1 {
		t.Errorf("%d audit entries naming the message, want 1", n)
	}
}

// A reminder holds one database connection: everything it reads and writes goes through
// its transaction. With every other connection of the pool taken, the merchant's
// reminder and the rep's notice still go out, instead of waiting for a second
// connection that a pool sized one per worker may never free.
func TestARemindersRunNeedsOneConnection(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	owner := rep(t, env, "rep")
	merchant := linked(t, env, owner, "Single Conn Subs")
	pending := linked(t, env, owner, "Pending Pretzels")
	for _, state := range []string{"inProgress", "processing", "processingPending"} {
		env.Clock.Advance(time.Minute)
		status(t, env, pending, state)
	}
	env.Clock.Advance(3 * day)

	pool := env.DB.Pool
	var held []*pgxpool.Conn
	t.Cleanup(func() {
		for _, c := range held {
			c.Release()
		}
	})
	for range pool.Config().MaxConns - 1 {
		c, err := pool.Acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	got, err := env.App.Reminders.Run(ctx)
	if err != nil || got.Failed != 0 {
		t.Fatalf("run on one connection: %+v, %v", got, err)
	}
	if got.Sent[reminders.KindNotOpened] != 1 || got.Sent[reminders.KindProcessingPending] != 1 || got.Sent[reminders.KindNotAccepted] != 0 {
		t.Errorf("report %+v, want the merchant's reminder and the rep's notice", got)
	}
	for _, c := range held {
		c.Release()
	}
	held = nil
	if n := reminderCount(t, env, merchant, reminders.KindNotOpened); n != 1 {
		t.Errorf("%d reminders to the merchant, want 1", n)
	}
}
