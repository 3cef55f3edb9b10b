// Package signals exports, as Prometheus metrics, what a payments operator pages on:
// pushes failing or waiting to retry, applications submitted but not linked, payments
// whose outcome is unknown, terminal transactions awaiting a person's decision, outbox
// messages not delivered, upstream webhooks refused, and the job queues' depth and age.
// The alert rules (deploy/prometheus/alerts.yml) and their runbook (docs/operations.md,
// "Alerts") are written against these names.
//
// The values read from the database are the same on every replica: each replica exports
// them, and the rules aggregate them with max. A replica reads them at most once per
// Deps.Every, when scraped, in one statement of bounded reads (partial indexes; counts stop
// at CountCap), so neither scrapes nor replicas nor the tables' history make it costlier.
// It reads the rooms' tables directly and imports no room: it only watches.
package signals

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/payportal/portal/internal/jobs"
)

// CountCap is where the counts stop: a gauge at CountCap means "at least".
const CountCap = 10_000

// DefaultEvery is how old a reading may be before a scrape reads again.
const DefaultEvery = 30 * time.Second

// readTimeout bounds one reading; a scrape never waits longer for the database.
const readTimeout = 5 * time.Second

// watchedQueues are the job queues the signals watch.
func watchedQueues() []string { return []string{jobs.QueueDefault, jobs.QueuePush, jobs.QueueMail} }

// Deps is what the signals read and when.
type Deps struct {
	Pool *pgxpool.Pool
	Now  func() time.Time
	// Every is how old a reading may be before a scrape reads again (DefaultEvery when
	// zero; negative reads on every scrape, for tests).
	Every time.Duration
	Log   *slog.Logger
	// RefusalReasons are the reasons webhooks are refused for (handoff's), exported at 0
	// from the start so that rules see every series.
	RefusalReasons []string
}

// Signals is the collector of the database's signals and the counters the portal's code
// increments.
type Signals struct {
	d      Deps
	gauges []gauge

	mu      sync.Mutex
	reading reading
	readAt  time.Time

	refused    *prometheus.CounterVec
	readErrors prometheus.Counter
}

// New returns the signals.
func New(d Deps) *Signals {
	if d.Every == 0 {
		d.Every = DefaultEvery
	}
	s := &Signals{d: d, gauges: newGauges(),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "portal_upstream_webhooks_refused_total",
			Help: "Status webhooks from the upstream this replica refused, by reason.",
		}, []string{"reason"}),
		readErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "portal_signals_read_errors_total",
			Help: "Readings of the alert signals from the database that failed on this replica.",
		}),
	}
	for _, r := range d.RefusalReasons {
		s.refused.WithLabelValues(r)
	}
	return s
}

// Collectors are what to register: the database's signals and the counters.
func (s *Signals) Collectors() []prometheus.Collector { return []prometheus.Collector{s, s.refused} }

// WebhookRefused counts a status webhook refused for reason.
func (s *Signals) WebhookRefused(reason string) { s.refused.WithLabelValues(reason).Inc() }

// Describe sends the descriptions of the database's signals.
func (s *Signals) Describe(ch chan<- *prometheus.Desc) {
	for _, g := range s.gauges {
		ch <- g.desc
	}
	s.readErrors.Describe(ch)
}

// Collect sends the database's signals, read again when the last reading is older than
// Deps.Every. A failed reading is logged and counted, and the last one is sent again: its
// timestamp (portal_signals_read_timestamp_seconds) tells how old it is.
func (s *Signals) Collect(ch chan<- prometheus.Metric) {
	s.mu.Lock()
	now := s.d.Now()
	if s.readAt.IsZero() || now.Sub(s.readAt) >= s.d.Every {
		ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
		r, err := read(ctx, s.d.Pool, now)
		cancel()
		if err != nil {
			s.readErrors.Inc()
			s.d.Log.Warn("reading the alert signals failed", "err", err)
		} else {
			s.reading, s.readAt = r, now
		}
	}
	r := s.reading
	s.mu.Unlock()
	// Sent from here, after the reading, so a scrape counts its own failure.
	s.readErrors.Collect(ch)
	for _, g := range s.gauges {
		for _, v := range g.values(r) {
			ch <- prometheus.MustNewConstMetric(g.desc, prometheus.GaugeValue, v.value, v.labels...)
		}
	}
}
