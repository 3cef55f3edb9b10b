package deploytest_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/reminders"
	"github.com/payportal/portal/internal/testutil"
	upstream "github.com/payportal/portal/internal/upstream/accounts"
)

// remindersOnce: a merchant who has not started four days after the hand-off
// and a rep whose weekly digest is due are each e-mailed once, though three
// runs of the reminders job work at once on the replicas.
func (w *work) remindersOnce(t *testing.T) {
	tp, ctx := w.tp, context.Background()
	now := time.Now().UTC()
	merchant := "dana@" + uuid.NewString()[:8] + ".example"
	linked := uuid.New()
	snap, err := tp.portal.Sealer.SealSnapshot(linked, upstream.ApplicationData{Business: &upstream.Business{DBA: "Slow Start Cafe"},
		Contact: &upstream.Contact{Name: "Dana Merchant", Email: merchant}})
	if err != nil {
		t.Fatal(err)
	}
	handedOff := now.Add(-4 * 24 * time.Hour)
	if _, err := tp.db.Exec(ctx, `INSERT INTO applications (id, owner_id, status, dba, legal_name, submitted_snapshot,
			upstream_application_id, handoff_link, linked_at, submitted_at, created_at, updated_at)
		VALUES ($1, $2, 'linked', 'Slow Start Cafe', 'Slow Start Cafe LLC', $3, $4, 'https://sandbox.test/apply/x', $5, $5, $5, $5)`,
		linked, w.rep.ID, string(snap), "UP-"+linked.String()[:8], handedOff); err != nil {
		t.Fatal(err)
	}
	digestRep, _ := createUser(t, tp.portal, "digest-rep@example.com", models.RoleSalesRep)
	if _, err := tp.db.Exec(ctx, `UPDATE users SET time_zone = $1 WHERE id = $2`, digestZone(now), digestRep.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := tp.db.Exec(ctx, `INSERT INTO applications (id, owner_id, status, dba, legal_name, created_at, updated_at)
		VALUES ($1, $2, 'draft', 'Dusty Draft', 'Dusty Draft LLC', $3, $3)`, uuid.New(), digestRep.ID, now.Add(-8*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	// Three runs at once, as when several replicas' schedules meet.
	for range 3 {
		if _, err := tp.portal.Jobs.Insert(ctx, reminders.RunArgs{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	testutil.Eventually(t, 60*time.Second, "the runs to finish and their e-mails to go out", func() (bool, string) {
		running := tp.count(t, `SELECT count(*) FROM river_job WHERE kind = 'reminders_run' AND state NOT IN ('completed', 'discarded', 'cancelled')`)
		unsent := tp.count(t, `SELECT count(*) FROM mail_outbox WHERE to_address IN ($1, $2) AND status <> 'sent'`, merchant, digestRep.Email)
		sent := tp.count(t, `SELECT count(*) FROM mail_outbox WHERE to_address IN ($1, $2) AND status = 'sent'`, merchant, digestRep.Email)
		var states string
		_ = tp.db.QueryRow(ctx, `SELECT coalesce(string_agg(state::text || ' ' || coalesce(errors[array_length(errors, 1)]::text, ''), '; '), '')
			FROM river_job WHERE kind = 'reminders_run'`).Scan(&states)
		var others string
		_ = tp.db.QueryRow(ctx, `SELECT coalesce(string_agg(kind || ' ' || state::text || ' ' || queue || ' ' || coalesce(attempted_by[array_length(attempted_by,1)], '') || ' ' || attempt, '; '), '')
			FROM river_job WHERE state IN ('running', 'available', 'retryable', 'scheduled')`).Scan(&others)
		states += " / " + others
		return running == 0 && unsent == 0 && sent >= 2, fmt.Sprintf("%d runs left (%s), %d unsent, %d sent", running, states, unsent, sent)
	})
	got := map[string]int{}
	for _, m := range tp.smtp.Messages() {
		for _, to := range m.To {
			got[to]++
		}
	}
	if got[merchant] != 1 || got[digestRep.Email] != 1 {
		t.Errorf("e-mails received: merchant %d, digest %d; want one each", got[merchant], got[digestRep.Email])
	}
	if n := tp.count(t, `SELECT count(*) FROM mail_outbox WHERE to_address IN ($1, $2)`, merchant, digestRep.Email); n != 2 {
		t.Errorf("%d messages queued, want 2", n)
	}
}

// digestZone is a time zone in which this week's digest (Mondays, from 8:00)
// is due now: any but one where it is Monday before 8:00.
func digestZone(now time.Time) string {
	for _, zone := range []string{"UTC", "Pacific/Kiritimati"} {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			continue
		}
		if local := now.In(loc); local.Weekday() != time.Monday || local.Hour() >= 8 {
			return zone
		}
	}
	return "UTC"
}
