package webhooks

import "github.com/prometheus/client_golang/prometheus"

// Metrics count the deliveries' attempts, for dashboards and alerts: a rising rate of
// failed attempts means receivers are down or refusing; disabled endpoints need an admin.
type Metrics struct {
	attempts *prometheus.CounterVec
	took     prometheus.Histogram
	disabled prometheus.Counter
}

// NewMetrics registers the webhook metrics on reg (nil: not exported, for tests).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "portal_webhook_attempts_total",
			Help: "Webhook delivery attempts, by result: delivered (2xx) or failed (any other answer, or none).",
		}, []string{"result"}),
		took: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "portal_webhook_attempt_seconds",
			Help:    "How long receivers took to answer a webhook delivery attempt.",
			Buckets: []float64{.01, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}),
		disabled: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "portal_webhook_endpoints_disabled_total",
			Help: "Webhook endpoints the portal disabled after their deliveries failed for three days.",
		}),
	}
	if reg != nil {
		reg.MustRegister(m.attempts, m.took, m.disabled)
	}
	return m
}

// attempt counts one attempt's answer.
func (m *Metrics) attempt(a Answer) {
	if m == nil {
		return
	}
	result := "failed"
	if a.Accepted {
		result = "delivered"
	}
	m.attempts.WithLabelValues(result).Inc()
	m.took.Observe(a.Took.Seconds())
}

// endpointDisabled counts an endpoint disabled for failing.
func (m *Metrics) endpointDisabled() {
	if m != nil {
		m.disabled.Inc()
	}
}
