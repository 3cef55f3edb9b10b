package reminders_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/reminders"
	"github.com/payportal/portal/internal/testutil/apptest"
)

// mondayMorning moves the clock to the next Monday at 07:59 in loc.
func mondayMorning(t *testing.T, env *apptest.Env, loc *time.Location) {
	t.Helper()
	now := env.Clock.Now().In(loc)
	days := (8 - int(now.Weekday())) % 7
	if days == 0 {
		days = 7
	}
	y, m, d := now.AddDate(0, 0, days).Date()
	target := time.Date(y, m, d, 7, 59, 0, 0, loc)
	env.Clock.Advance(target.Sub(env.Clock.Now()))
}

// The weekly digest lists, for each rep, their drafts untouched for 7 days or more
// that they have not been told about three times, and nothing else: not a fresh
// draft, not a submitted or deleted one, not a paused one, not another rep's.
func TestWeeklyDigestListsTheRightDrafts(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Fatal(err)
	}
	alice := rep(t, env, "alice")
	bob := rep(t, env, "bob")
	exec(t, env, `UPDATE users SET time_zone = 'America/Los_Angeles' WHERE id = $1`, alice.ID)

	stale := draft(t, env, alice, "Stale Sandwiches")
	paused := draft(t, env, alice, "Paused Pasta")
	deleted := draft(t, env, alice, "Deleted Dumplings")
	linked(t, env, alice, "Linked Lemonade")
	draft(t, env, bob, "Bob's Bagels")
	exec(t, env, `UPDATE applications SET deleted_at = now() WHERE id = $1`, deleted)
	exec(t, env, `INSERT INTO reminder_pauses (application_id, paused_at) VALUES ($1, now())`, paused)
	env.Clock.Advance(8 * day)
	draft(t, env, alice, "Fresh Falafel")

	mondayMorning(t, env, la)
	run(t, env)
	if n := count(t, env, `SELECT count(*) FROM mail_outbox WHERE kind = 'digest' AND to_address = $1`, alice.Email); n != 0 {
		t.Fatalf("%d digests before 08:00 on Monday in the rep's zone", n)
	}
	env.Clock.Advance(time.Minute)
	run(t, env)
	run(t, env)
	digests := outbox(t, env, "digest")
	var forAlice *sentMail
	for i, d := range digests {
		if d.To == alice.Email {
			forAlice = &digests[i]
		}
	}
	if forAlice == nil {
		t.Fatalf("no digest for the rep; outbox %+v", digests)
	}
	if !strings.Contains(forAlice.Text, "Stale Sandwiches") || !strings.Contains(forAlice.Text, env.URL+"/applications/"+stale.String()) {
		t.Errorf("the digest misses the stale draft:\n%s", forAlice.Text)
	}
	for _, name := range []string{"Paused Pasta", "Deleted Dumplings", "Linked Lemonade", "Fresh Falafel", "Bob's Bagels"} {
		if strings.Contains(forAlice.Text, name) {
			t.Errorf("the digest lists %q:\n%s", name, forAlice.Text)
		}
	}
	if n := count(t, env, `SELECT count(*) FROM mail_outbox WHERE kind = 'digest' AND to_address = $1`, alice.Email); n != 1 {
		t.Errorf("%d digests for the rep this week, want 1", n)
	}

	// Each week while it stays untouched, at most three times.
	for range 5 {
		mondayMorning(t, env, la)
		env.Clock.Advance(time.Minute)
		run(t, env)
	}
	if n := reminderCount(t, env, stale, reminders.KindStaleDrafts); n != 3 {
		t.Errorf("the stale draft was listed %d times, want 3", n)
	}
	if n := count(t, env, `SELECT count(*) FROM audit_events WHERE subject_id = $1 AND action = 'reminder_sent'`, stale); n != 3 {
		t.Errorf("%d audit entries for the listings, want 3", n)
	}
}

func TestDigestLeavesOutADraftTouchedSinceLastWeek(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	owner := rep(t, env, "rep")
	a := draft(t, env, owner, "Touched Tacos")
	draft(t, env, owner, "Forgotten Fries")
	env.Clock.Advance(8 * day)
	mondayMorning(t, env, time.UTC)
	env.Clock.Advance(time.Minute)
	run(t, env)
	if n := reminderCount(t, env, a, reminders.KindStaleDrafts); n != 1 {
		t.Fatalf("listed %d times", n)
	}
	env.Clock.Advance(2 * day) // touched on Wednesday: five days before the next digest
	exec(t, env, `UPDATE applications SET updated_at = $2 WHERE id = $1`, a, env.Clock.Now())
	mondayMorning(t, env, time.UTC)
	env.Clock.Advance(time.Minute)
	run(t, env)
	digests := outbox(t, env, "digest")
	if len(digests) != 2 {
		t.Fatalf("%d digests, want 2", len(digests))
	}
	if last := digests[1].Text; strings.Contains(last, "Touched Tacos") || !strings.Contains(last, "Forgotten Fries") {
		t.Errorf("second digest:\n%s", last)
	}
}

// A rep pauses an application's reminders from its page: none goes out until they
// resume; the pause and the resume are in the history; another rep cannot.
func TestPausingStopsRemindersUntilResumed(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	owner, password := env.CreateUser(t, "owner@example.com", models.RoleSalesRep)
	c := env.Client(t)
	c.Login(owner.Email, password)
	_, other := env.SignedIn(t, "other@example.com", models.RoleSalesRep)
	id := linked(t, env, owner, "Paused Pretzels")

	page := c.Get("/applications/" + id.String() + "/reminders")
	if page.Status != http.StatusOK || !strings.Contains(page.Body, "Pause reminders") {
		t.Fatalf("reminders page: %d\n%s", page.Status, page.Body)
	}
	if res := other.PostForm("/applications/"+id.String()+"/reminders/pause", url.Values{}); res.Status != http.StatusNotFound {
		t.Fatalf("another rep pausing: %d", res.Status)
	}
	if res := c.PostForm("/applications/"+id.String()+"/reminders/pause", url.Values{}); res.Status != http.StatusSeeOther {
		t.Fatalf("pause: %d %s", res.Status, res.Body)
	}
	env.Clock.Advance(20 * day)
	run(t, env)
	if n := reminderCount(t, env, id, reminders.KindNotOpened); n != 0 {
		t.Fatalf("%d reminders while paused", n)
	}
	c.Login(owner.Email, password) // twenty days later
	if res := c.PostForm("/applications/"+id.String()+"/reminders/resume", url.Values{}); res.Status != http.StatusSeeOther {
		t.Fatalf("resume: %d", res.Status)
	}
	run(t, env)
	if n := reminderCount(t, env, id, reminders.KindNotOpened); n != 1 {
		t.Fatalf("%d reminders after resuming, want 1", n)
	}
	page = c.Get("/applications/" + id.String() + "/reminders")
	if !strings.Contains(page.Body, "Merchant has not started (1)") || !strings.Contains(page.Body, "dana@pausedpretzels.example") {
		t.Errorf("the page does not show what was sent:\n%s", page.Body)
	}
	history := c.Get("/applications/" + id.String() + "/history")
	for _, want := range []string{"paused the reminders", "resumed the reminders", "reminded the merchant to open their application"} {
		if !strings.Contains(history.Body, want) {
			t.Errorf("history lacks %q", want)
		}
	}
}

func TestAdminsConfigureReminders(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	_, admin := env.SignedIn(t, "admin@example.com", models.RoleAdmin)
	owner, repClient := env.SignedIn(t, "reminded.rep@example.com", models.RoleSalesRep)
	if res := repClient.Get("/admin/reminders"); res.Status != http.StatusForbidden && res.Status != http.StatusNotFound {
		t.Fatalf("a rep reads the settings: %d", res.Status)
	}
	page := admin.Get("/admin/reminders")
	if page.Status != http.StatusOK || !strings.Contains(page.Body, `name="not_opened.after_days"`) {
		t.Fatalf("settings page: %d", page.Status)
	}
	form := url.Values{}
	for _, k := range reminders.Kinds() {
		form.Set(string(k)+".enabled", "on")
		form.Set(string(k)+".after_days", "3")
		form.Set(string(k)+".interval_days", "3")
		form.Set(string(k)+".max_sends", "3")
		form.Set(string(k)+".weekday", "1")
	}
	bad := url.Values{}
	for k, v := range form {
		bad[k] = v
	}
	bad.Set("not_opened.max_sends", "99")
	bad.Set("not_accepted.after_days", "soon")
	res := admin.PostForm("/admin/reminders", bad)
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "from 1 to 10") || !strings.Contains(res.Body, `value="soon"`) {
		t.Fatalf("refused settings: %d\n%s", res.Status, res.Body)
	}
	// Turn off "not started" reminders, and make the first come after one day.
	form.Del("not_opened.enabled")
	form.Set("not_accepted.after_days", "1")
	if res := admin.PostForm("/admin/reminders", form); res.Status != http.StatusSeeOther {
		t.Fatalf("save: %d %s", res.Status, res.Body)
	}
	id := linked(t, env, owner, "Configured Crepes")
	env.Clock.Advance(10 * day)
	run(t, env)
	if n := reminderCount(t, env, id, reminders.KindNotOpened); n != 0 {
		t.Errorf("%d reminders of a kind turned off", n)
	}
	status(t, env, id, "inProgress")
	env.Clock.Advance(day)
	run(t, env)
	if n := reminderCount(t, env, id, reminders.KindNotAccepted); n != 1 {
		t.Errorf("%d reminders one day after starting, want 1", n)
	}
	set, err := env.App.Reminders.Settings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if set[reminders.KindNotOpened].Enabled || set[reminders.KindNotAccepted].AfterDays != 1 {
		t.Errorf("stored settings %+v", set)
	}
}
