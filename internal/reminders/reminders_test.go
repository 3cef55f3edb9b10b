package reminders_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/reminders"
)

// A merchant who never starts gets the configured reminders (3 days, then every 3
// days, at most 3), each exactly once, with the tracked link; none once the processor
// reports them starting, after which the "not accepted" series begins, and stops when
// they accept.
func TestMerchantRemindersFollowTheProcessorsState(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	owner := rep(t, env, "rep")
	admin, _ := env.CreateUser(t, "admin@example.com", models.RoleAdmin)
	id := linked(t, env, owner, "Dana Donuts")

	env.Clock.Advance(3*day - time.Minute)
	run(t, env)
	if n := reminderCount(t, env, id, reminders.KindNotOpened); n != 0 {
		t.Fatalf("%d reminders a minute before the third day", n)
	}
	env.Clock.Advance(time.Minute)
	if rep := run(t, env); rep.Sent[reminders.KindNotOpened] != 1 {
		t.Fatalf("report %+v, want one reminder", rep)
	}
	run(t, env) // the job runs again: nothing more
	msgs := outbox(t, env, "handoff_reminder")
	if len(msgs) != 1 {
		t.Fatalf("%d reminders in the outbox, want 1", len(msgs))
	}
	if m := msgs[0]; m.To != "dana@danadonuts.example" || !strings.Contains(m.Text, mail.LinkPlaceholder) ||
		!strings.Contains(m.Subject, "Dana Donuts") || m.ApplicationID == nil || *m.ApplicationID != id {
		t.Errorf("reminder %+v lacks the merchant's address, the tracked link's place or the name", m)
	}
	// The reminder carries a tracked link of its own, sealed in the outbox, which leads
	// to the merchant's application at the processor and records the open. (No SMTP
	// server: delivery holds the message, and an admin may read its link.)
	exec(t, env, `UPDATE mail_outbox SET status = 'held' WHERE id = $1`, msgs[0].ID)
	stored, err := env.App.Outbox.Get(context.Background(), msgs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	link, err := env.App.Outbox.RevealLink(context.Background(), admin.ID, stored)
	if err != nil || !strings.HasPrefix(link, env.URL+"/l/") {
		t.Fatalf("the reminder's link %q (%v)", link, err)
	}
	if res := env.Client(t).Get(strings.TrimPrefix(link, env.URL)); res.Status != http.StatusSeeOther || res.Location != "https://sandbox.test/apply/x" {
		t.Errorf("following the reminder's link: %d %s", res.Status, res.Location)
	}
	if n := count(t, env, `SELECT count(*) FROM audit_events WHERE subject_id = $1 AND action = 'reminder_sent' AND details->>'reminder' = 'not_opened'`, id); n != 1 {
		t.Errorf("%d audit entries, want 1", n)
	}

	// The second comes three days after the first, not before.
	env.Clock.Advance(3*day - time.Minute)
	run(t, env)
	if n := reminderCount(t, env, id, reminders.KindNotOpened); n != 1 {
		t.Fatalf("%d reminders before the interval passed", n)
	}
	env.Clock.Advance(time.Minute)
	run(t, env)
	if n := reminderCount(t, env, id, reminders.KindNotOpened); n != 2 {
		t.Fatalf("%d reminders after the interval, want 2", n)
	}

	// The merchant starts at the processor: no more "not started" reminders.
	status(t, env, id, "inProgress")
	for range 10 {
		env.Clock.Advance(day)
		run(t, env)
		if n := reminderCount(t, env, id, reminders.KindNotOpened); n != 2 {
			t.Fatalf("%d 'not started' reminders after the merchant started", n)
		}
	}
	// Ten days in progress: three "not accepted" reminders went out (days 3, 6, 9).
	if n := reminderCount(t, env, id, reminders.KindNotAccepted); n != 3 {
		t.Fatalf("%d 'not accepted' reminders in ten days, want 3", n)
	}
	if msgs := outbox(t, env, "handoff_reminder"); !strings.Contains(msgs[len(msgs)-1].Subject, "finish and accept") {
		t.Errorf("the 'not accepted' reminder says %q", msgs[len(msgs)-1].Subject)
	}
	// At most three, however long it waits.
	for range 30 {
		env.Clock.Advance(day)
		run(t, env)
	}
	if n := reminderCount(t, env, id, reminders.KindNotAccepted); n != 3 {
		t.Fatalf("%d 'not accepted' reminders, want at most 3", n)
	}
	if n := len(outbox(t, env, "handoff_reminder")); n != 5 {
		t.Errorf("%d reminders in the outbox, want 5", n)
	}
}

func TestAcceptingStopsTheSeriesAtOnce(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	owner := rep(t, env, "rep")
	id := linked(t, env, owner, "Quick Accept")
	status(t, env, id, "inProgress")
	env.Clock.Advance(3*day - time.Hour)
	status(t, env, id, "processing")
	for range 20 {
		env.Clock.Advance(day)
		run(t, env)
	}
	if n := count(t, env, `SELECT count(*) FROM reminders_sent WHERE application_id = $1`, id); n != 0 {
		t.Errorf("%d reminders after the merchant accepted", n)
	}
}

// processingPending tells the rep at once, again every two days while it lasts, and
// never after the processor decides.
func TestProcessingPendingTellsTheRepAtOnce(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	owner := rep(t, env, "rep")
	id := linked(t, env, owner, "Pending Pies")
	status(t, env, id, "inProgress")
	env.Clock.Advance(time.Hour)
	status(t, env, id, "processing")
	env.Clock.Advance(time.Hour)
	status(t, env, id, "processingPending")
	run(t, env)
	run(t, env)
	notices := outbox(t, env, "rep_notice")
	if len(notices) != 1 {
		t.Fatalf("%d notices, want 1 at once", len(notices))
	}
	if n := notices[0]; n.To != owner.Email || !strings.Contains(n.Subject, "Pending Pies") ||
		!strings.Contains(n.Text, env.URL+"/applications/"+id.String()) {
		t.Errorf("notice %+v", n)
	}
	env.Clock.Advance(2*day - time.Minute)
	run(t, env)
	env.Clock.Advance(time.Minute)
	run(t, env)
	if n := len(outbox(t, env, "rep_notice")); n != 2 {
		t.Fatalf("%d notices after two days, want 2", n)
	}
	status(t, env, id, "boarded")
	for range 10 {
		env.Clock.Advance(day)
		run(t, env)
	}
	if n := len(outbox(t, env, "rep_notice")); n != 2 {
		t.Errorf("%d notices after boarding, want 2", n)
	}
}

// The job on two instances at once, or run twice, sends each reminder once.
func TestConcurrentRunsSendEachReminderOnce(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	owner := rep(t, env, "rep")
	var ids []uuid.UUID
	for i := range 20 {
		ids = append(ids, linked(t, env, owner, "Merchant "+string(rune('A'+i))))
	}
	env.Clock.Advance(3 * day)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := env.App.Reminders.Run(context.Background()); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := len(outbox(t, env, "handoff_reminder")); n != 20 {
		t.Errorf("%d reminders for 20 applications", n)
	}
	if n := count(t, env, `SELECT count(*) FROM audit_events WHERE action = 'reminder_sent'`); n != 20 {
		t.Errorf("%d audit entries for 20 reminders", n)
	}
	for i, id := range ids {
		if n := reminderCount(t, env, id, reminders.KindNotOpened); n != 1 {
			t.Errorf("Merchant %c: %d reminders recorded, want 1", 'A'+i, n)
		}
	}
}

func TestDeletedAndReassignedToInactiveOwnersGetNone(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	owner := rep(t, env, "rep")
	gone := rep(t, env, "gone")
	deleted := linked(t, env, owner, "Deleted Deli")
	orphan := linked(t, env, gone, "Orphan Oats")
	exec(t, env, `UPDATE applications SET deleted_at = now() WHERE id = $1`, deleted)
	exec(t, env, `UPDATE users SET active = false WHERE id = $1`, gone.ID)
	env.Clock.Advance(10 * day)
	run(t, env)
	if n := count(t, env, `SELECT count(*) FROM reminders_sent WHERE application_id IN ($1, $2)`, deleted, orphan); n != 0 {
		t.Errorf("%d reminders for a deleted application or an inactive owner's", n)
	}
}
