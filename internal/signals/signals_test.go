package signals_test

import (
	"context"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/signals"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// clock is a manual clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// gather scrapes reg and returns every sample as "name{label=value,...}" → value.
func gather(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			sort.Strings(labels)
			name := f.GetName()
			if len(labels) > 0 {
				name += "{" + strings.Join(labels, ",") + "}"
			}
			switch {
			case m.GetGauge() != nil:
				out[name] = m.GetGauge().GetValue()
			case m.GetCounter() != nil:
				out[name] = m.GetCounter().GetValue()
			}
		}
	}
	return out
}

func run(t *testing.T, db *database.DB, sql string, args ...any) {
	t.Helper()
	if _, err := db.Pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// The signals read what waits in each table, age its oldest, and read again only once
// their reading is older than Every, however often they are scraped.
func TestSignalsReadWhatWaits(t *testing.T) {
	db := testdb.New(t)
	now := time.Now().UTC().Truncate(time.Second)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	user := uuid.New()
	run(t, db, `INSERT INTO users (id, email, role, password_hash) VALUES ($1, 'rep@example.com', 'sales_rep', 'x')`, user)
	app := func(status string, submitted time.Time, deleted bool) {
		var deletedAt *time.Time
		if deleted {
			deletedAt = &now
		}
		run(t, db, `INSERT INTO applications (id, owner_id, status, submitted_at, deleted_at) VALUES ($1, $2, $3, $4, $5)`,
			uuid.New(), user, status, submitted, deletedAt)
	}
	app("submitting", ago(40*time.Minute), false)
	app("submitting", ago(5*time.Minute), false)
	app("submitting", ago(90*time.Minute), true) // deleted: not waited for
	app("needs_attention", ago(3*time.Hour), false)
	app("linked", ago(4*time.Hour), false)
	for _, status := range []string{"checking", "approved"} {
		run(t, db, `INSERT INTO ledger_transactions (id, merchant_id, source, kind, status, created_at, updated_at)
			VALUES ($1, $2, 'card', 'sale', $3, $4, $4)`, uuid.New(), uuid.New(), status, ago(20*time.Minute))
	}
	for _, state := range []string{"unknown", "approved"} {
		run(t, db, `INSERT INTO terminal_launches (id, merchant_id, location_id, device_name, kind, state, invoice_ref,
			transaction_ref, cashier, test_mode, form_token, created_by, created_at)
			VALUES ($1, $2, 'loc', 'Front', 'sale', $3, 'INV', 'INV.1', 'Casey', true, $4, $5, $6)`,
			uuid.New(), uuid.New(), state, uuid.New(), user, ago(70*time.Minute))
	}
	for i, status := range []string{"pending", "failed", "held", "held", "sent"} {
		run(t, db, `INSERT INTO mail_outbox (id, kind, to_address, subject, text_body, status, created_at)
			VALUES ($1, 'invitation', 'x@example.com', 'Hi', 'Hello', $2, $3)`, uuid.New(), status, ago(time.Duration(16+i)*time.Minute))
	}
	run(t, db, `INSERT INTO river_job (kind, args, queue, state, scheduled_at, max_attempts) VALUES
		('noop', '{}', 'push', 'available', $1, 1),
		('application_push', '{}', 'push', 'retryable', $2, 8),
		('noop', '{}', 'default', 'scheduled', $2, 1)`, ago(10*time.Minute), now.Add(time.Minute))

	c := &clock{t: now}
	reg := prometheus.NewRegistry()
	reg.MustRegister(signals.New(signals.Deps{Pool: db.Pool, Now: c.Now, Log: slog.New(slog.DiscardHandler), RefusalReasons: []string{"token"}}).Collectors()...)
	want := map[string]float64{
		"portal_pushes_waiting_to_retry":                                1,
		"portal_pushes_failed":                                          1,
		"portal_applications_unlinked":                                  2,
		"portal_applications_unlinked_oldest_seconds":                   40 * 60,
		"portal_payments_outcome_unknown":                               1,
		"portal_payments_outcome_unknown_oldest_seconds":                20 * 60,
		"portal_terminal_transactions_awaiting_decision":                1,
		"portal_terminal_transactions_awaiting_decision_oldest_seconds": 70 * 60,
		"portal_outbox_undelivered{status=pending}":                     1,
		"portal_outbox_undelivered{status=failed}":                      1,
		"portal_outbox_undelivered{status=held}":                        2,
		"portal_outbox_pending_oldest_seconds":                          16 * 60,
		"portal_jobs_available{queue=push}":                             1,
		"portal_jobs_available{queue=default}":                          0,
		"portal_jobs_available{queue=mail}":                             0,
		"portal_jobs_retryable{queue=push}":                             1,
		"portal_jobs_oldest_available_seconds{queue=push}":              10 * 60,
		"portal_jobs_oldest_available_seconds{queue=mail}":              0,
		"portal_signals_read_timestamp_seconds":                         float64(now.Unix()),
		"portal_upstream_webhooks_refused_total{reason=token}":          0,
		"portal_signals_read_errors_total":                              0,
	}
	got := gather(t, reg)
	for name, v := range want {
		if g, ok := got[name]; !ok || g != v {
			t.Errorf("%s = %v (exported: %v), want %v", name, g, ok, v)
		}
	}

	// A second scrape within Every reads nothing again; after it, it does.
	app("submitting", ago(time.Minute), false)
	if got := gather(t, reg)["portal_applications_unlinked"]; got != 2 {
		t.Errorf("a scrape within Every read again: %v unlinked", got)
	}
	c.Advance(signals.DefaultEvery)
	got = gather(t, reg)
	if got["portal_applications_unlinked"] != 3 || got["portal_applications_unlinked_oldest_seconds"] != 40*60+signals.DefaultEvery.Seconds() {
		t.Errorf("after Every: %v unlinked, oldest %v s", got["portal_applications_unlinked"], got["portal_applications_unlinked_oldest_seconds"])
	}
}

// A failed reading is counted, and the last good one is exported again with its time.
func TestSignalsKeepTheLastReadingWhenTheDatabaseFails(t *testing.T) {
	db := testdb.New(t)
	c := &clock{t: time.Now().UTC().Truncate(time.Second)}
	first := c.Now()
	reg := prometheus.NewRegistry()
	reg.MustRegister(signals.New(signals.Deps{Pool: db.Pool, Now: c.Now, Log: slog.New(slog.DiscardHandler)}).Collectors()...)
	gather(t, reg)
	run(t, db, `ALTER TABLE mail_outbox RENAME TO mail_outbox_gone`)
	c.Advance(time.Hour)
	got := gather(t, reg)
	if got["portal_signals_read_errors_total"] != 1 || got["portal_signals_read_timestamp_seconds"] != float64(first.Unix()) {
		t.Errorf("after a failed reading: %v errors, read at %v (want %v)", got["portal_signals_read_errors_total"],
			got["portal_signals_read_timestamp_seconds"], first.Unix())
	}
}
