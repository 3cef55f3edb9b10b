package config

import "time"

// TerminalsConfig tunes how the portal follows the transactions launched on
// card terminals (internal/terminals).
type TerminalsConfig struct {
	// PollInterval separates two reads of one transaction's result
	// (PORTAL_TERMINALS_POLL_INTERVAL, default 1 s, at least 1 s: the cloud
	// is read at most once a second per transaction).
	PollInterval time.Duration
	// Lease is how long a portal process holds the transactions it follows
	// without renewing (PORTAL_TERMINALS_LEASE, default 10 s): a process
	// that dies has its transactions taken over within it.
	Lease time.Duration
	// MaxReads bounds the result reads in flight at once, all transactions
	// together (PORTAL_TERMINALS_MAX_READS, default 32).
	MaxReads int
}

func readTerminals(r *reader) TerminalsConfig {
	c := TerminalsConfig{
		PollInterval: r.duration("PORTAL_TERMINALS_POLL_INTERVAL", time.Second),
		Lease:        r.duration("PORTAL_TERMINALS_LEASE", 10*time.Second),
		MaxReads:     r.integer("PORTAL_TERMINALS_MAX_READS", 32, 1, 1024),
	}
	if c.PollInterval < time.Second {
		r.fail("PORTAL_TERMINALS_POLL_INTERVAL", "must be at least 1s: the terminal cloud is read at most once a second per transaction")
	}
	if c.Lease < 3*time.Second {
		r.fail("PORTAL_TERMINALS_LEASE", "must be at least 3s (it is renewed every third of it)")
	}
	return c
}
