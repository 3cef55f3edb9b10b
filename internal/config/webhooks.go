package config

import "time"

// WebhooksConfig tunes the deliveries of the partner webhooks (internal/webhooks).
type WebhooksConfig struct {
	// AllowPrivate lets deliveries reach private, loopback and link-local addresses, and
	// plain http:// URLs (PORTAL_WEBHOOKS_ALLOW_PRIVATE, default false). It is for tests
	// and `make run` with a receiver on the same machine; production refuses it, since it
	// would let whoever registers an endpoint make the portal call into its own network.
	AllowPrivate bool
	// Timeout bounds one delivery attempt, from connecting to the receiver's answer
	// (PORTAL_WEBHOOKS_TIMEOUT, default 10 s, between 1 s and 30 s).
	Timeout time.Duration
}

func readWebhooks(r *reader, production bool) WebhooksConfig {
	c := WebhooksConfig{
		AllowPrivate: r.boolean("PORTAL_WEBHOOKS_ALLOW_PRIVATE", false),
		Timeout:      r.durationBetween("PORTAL_WEBHOOKS_TIMEOUT", 10*time.Second, time.Second, 30*time.Second),
	}
	if c.AllowPrivate && production {
		r.fail("PORTAL_WEBHOOKS_ALLOW_PRIVATE", "must not be true with PORTAL_ENV=production: webhooks would reach the portal's own network")
	}
	return c
}
