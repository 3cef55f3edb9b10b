package signals

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
)

// reading is one reading of the database's signals.
type reading struct {
	at time.Time
	// pushesRetrying are push jobs waiting for their next attempt after a failure;
	// pushesFailed applications whose push stopped and went back to the rep.
	pushesRetrying, pushesFailed float64
	// unlinked are applications submitted and not linked yet, and the age of the oldest.
	unlinked, unlinkedAge float64
	// unknownPayments are payments whose outcome is being checked, and the oldest's age.
	unknownPayments, unknownPaymentsAge float64
	// terminalsAwaiting are terminal transactions of unknown outcome, waiting for a
	// person to decide, and the oldest's age.
	terminalsAwaiting, terminalsAwaitingAge float64
	// outbox counts undelivered messages by status; pendingAge is the oldest pending's.
	outbox     map[string]float64
	pendingAge float64
	// available, retryable and availableAge are per queue.
	available, retryable, availableAge map[string]float64
}

// capped counts the rows of a condition, stopping at CountCap.
func capped(from string) string {
	return `(SELECT count(*) FROM (SELECT 1 FROM ` + from + ` LIMIT ` + strconv.Itoa(CountCap) + `) c)`
}

// signalsSQL reads every signal but the queues' in one statement; each part reads a
// partial index or stops at CountCap rows.
var signalsSQL = `SELECT
	` + capped(`river_job WHERE state = 'retryable' AND kind = 'application_push'`) + `,
	` + capped(`applications WHERE status = 'needs_attention' AND deleted_at IS NULL`) + `,
	` + capped(`applications WHERE status = 'submitting' AND deleted_at IS NULL`) + `,
	(SELECT min(submitted_at) FROM applications WHERE status = 'submitting' AND deleted_at IS NULL),
	` + capped(`ledger_transactions WHERE status = 'checking'`) + `,
	(SELECT min(created_at) FROM ledger_transactions WHERE status = 'checking'),
	` + capped(`terminal_launches WHERE state = 'unknown'`) + `,
	(SELECT min(created_at) FROM terminal_launches WHERE state = 'unknown'),
	` + capped(`mail_outbox WHERE status = 'pending'`) + `,
	` + capped(`mail_outbox WHERE status = 'failed'`) + `,
	` + capped(`mail_outbox WHERE status = 'held'`) + `,
	(SELECT min(created_at) FROM mail_outbox WHERE status = 'pending')`

// queueSQL reads one queue's depth, retries and oldest available job, each bounded.
var queueSQL = `SELECT
	` + capped(`river_job WHERE state = 'available' AND queue = $1`) + `,
	` + capped(`river_job WHERE state = 'retryable' AND queue = $1`) + `,
	(SELECT min(scheduled_at) FROM (SELECT scheduled_at FROM river_job WHERE state = 'available' AND queue = $1 LIMIT ` + strconv.Itoa(CountCap) + `) a)`

func read(ctx context.Context, pool *pgxpool.Pool, now time.Time) (reading, error) {
	r := reading{at: now, outbox: map[string]float64{}, available: map[string]float64{}, retryable: map[string]float64{}, availableAge: map[string]float64{}}
	var unlinkedSince, paymentSince, terminalSince, pendingSince *time.Time
	var pending, failed, held float64
	err := pool.QueryRow(ctx, signalsSQL).Scan(&r.pushesRetrying, &r.pushesFailed, &r.unlinked, &unlinkedSince,
		&r.unknownPayments, &paymentSince, &r.terminalsAwaiting, &terminalSince, &pending, &failed, &held, &pendingSince)
	if err != nil {
		return reading{}, fmt.Errorf("signals: %w", err)
	}
	r.unlinkedAge, r.unknownPaymentsAge = age(now, unlinkedSince), age(now, paymentSince)
	r.terminalsAwaitingAge, r.pendingAge = age(now, terminalSince), age(now, pendingSince)
	r.outbox["pending"], r.outbox["failed"], r.outbox["held"] = pending, failed, held
	for _, q := range watchedQueues() {
		var available, retryable float64
		var since *time.Time
		if err := pool.QueryRow(ctx, queueSQL, q).Scan(&available, &retryable, &since); err != nil {
			return reading{}, fmt.Errorf("signals: queue %s: %w", q, err)
		}
		r.available[q], r.retryable[q], r.availableAge[q] = available, retryable, age(now, since)
	}
	return r, nil
}

// age is how long ago since was, in seconds; 0 when nothing is waiting.
func age(now time.Time, since *time.Time) float64 {
	if since == nil || since.After(now) {
		return 0
	}
	return now.Sub(*since).Seconds()
}

// sample is one value of a gauge, with its label values.
type sample struct {
	value  float64
	labels []string
}

// gauge is one exported signal: its description and how it reads from a reading.
type gauge struct {
	desc   *prometheus.Desc
	values func(reading) []sample
}

func one(name, help string, v func(reading) float64) gauge {
	return gauge{desc: prometheus.NewDesc(name, help, nil, nil), values: func(r reading) []sample { return []sample{{value: v(r)}} }}
}

func by(name, help, label string, keys []string, v func(reading) map[string]float64) gauge {
	return gauge{desc: prometheus.NewDesc(name, help, []string{label}, nil), values: func(r reading) []sample {
		out := make([]sample, len(keys))
		for i, k := range keys {
			out[i] = sample{value: v(r)[k], labels: []string{k}}
		}
		return out
	}}
}

// newGauges describes the database's signals, as the alert rules name them.
func newGauges() []gauge {
	queues := watchedQueues()
	return []gauge{
		one("portal_pushes_waiting_to_retry", "Application pushes that failed and wait for their next attempt.", func(r reading) float64 { return r.pushesRetrying }),
		one("portal_pushes_failed", "Applications whose push stopped and went back to the rep (needs attention).", func(r reading) float64 { return r.pushesFailed }),
		one("portal_applications_unlinked", "Applications submitted and not linked upstream yet.", func(r reading) float64 { return r.unlinked }),
		one("portal_applications_unlinked_oldest_seconds", "Age of the oldest application submitted and not linked (0: none).", func(r reading) float64 { return r.unlinkedAge }),
		one("portal_payments_outcome_unknown", "Payments whose outcome is unknown and being checked.", func(r reading) float64 { return r.unknownPayments }),
		one("portal_payments_outcome_unknown_oldest_seconds", "Age of the oldest payment of unknown outcome (0: none).", func(r reading) float64 { return r.unknownPaymentsAge }),
		one("portal_terminal_transactions_awaiting_decision", "Terminal transactions of unknown outcome, waiting for a person to decide.", func(r reading) float64 { return r.terminalsAwaiting }),
		one("portal_terminal_transactions_awaiting_decision_oldest_seconds", "Age of the oldest terminal transaction awaiting a decision (0: none).", func(r reading) float64 { return r.terminalsAwaitingAge }),
		by("portal_outbox_undelivered", "Outbox messages not delivered, by status (pending, failed, held).", "status",
			[]string{"pending", "failed", "held"}, func(r reading) map[string]float64 { return r.outbox }),
		one("portal_outbox_pending_oldest_seconds", "Age of the oldest outbox message waiting for delivery (0: none).", func(r reading) float64 { return r.pendingAge }),
		by("portal_jobs_available", "Jobs ready to run and not started, by queue.", "queue", queues, func(r reading) map[string]float64 { return r.available }),
		by("portal_jobs_retryable", "Jobs that failed and wait for their next attempt, by queue.", "queue", queues, func(r reading) map[string]float64 { return r.retryable }),
		by("portal_jobs_oldest_available_seconds", "How long the oldest ready job of each queue has waited (0: none).", "queue", queues,
			func(r reading) map[string]float64 { return r.availableAge }),
		one("portal_signals_read_timestamp_seconds", "When the values above were read from the database (Unix time).", func(r reading) float64 {
			if r.at.IsZero() {
				return 0
			}
			return float64(r.at.UnixNano()) / 1e9
		}),
	}
}
