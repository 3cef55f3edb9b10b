package config

import (
	"fmt"
	"strconv"
	"strings"
)

// DatabaseLimits are the database server's limits on connections that bear on
// the portal's, as read at start (database.ReadLimits).
type DatabaseLimits struct {
	// MaxConnections is the server's max_connections.
	MaxConnections int
	// Reserved are the slots only superusers (superuser_reserved_connections)
	// and members of pg_use_reserved_connections (reserved_connections, from
	// PostgreSQL 16) may use.
	Reserved int
	// DatabaseLimit is the database's CONNECTION LIMIT, or -1 for none.
	DatabaseLimit int
	// RoleLimit is the portal's role's CONNECTION LIMIT, or -1 for none.
	RoleLimit int
}

// ConnectionBudget is the arithmetic that sizes one replica's database pool:
// the connections the database allows, less the reserved slots and the
// headroom left for people and tools, shared among the replicas. Every
// replica computes the same numbers, so together they never exceed the limit.
type ConnectionBudget struct {
	Limits   DatabaseLimits
	Headroom int
	Replicas int
	// Wanted is what this replica's workers and web requests use at most, or
	// the explicit PORTAL_DB_MAX_CONNS.
	Wanted   int
	Explicit bool
	// Available is what all replicas together may hold: the smallest limit
	// that applies, less Headroom.
	Available int
	// Share is Available divided among the replicas.
	Share int
	// Pool is this replica's pool: the smaller of Wanted and Share, or Wanted
	// when explicit.
	Pool int
}

// PoolBudget works out this replica's pool from c and the database's limits. It
// refuses a share too small for the workers (they would starve web requests);
// an explicit PORTAL_DB_MAX_CONNS beyond the share is kept, and Fits says so.
func PoolBudget(c *Config, l DatabaseLimits) (ConnectionBudget, error) {
	b := ConnectionBudget{Limits: l, Headroom: c.DBHeadroom, Replicas: max(c.Replicas, 1),
		Wanted: int(c.DBMaxConns), Explicit: c.DBMaxConnsExplicit}
	limit := l.MaxConnections - l.Reserved
	for _, other := range []int{l.DatabaseLimit, l.RoleLimit} {
		if other >= 0 {
			limit = min(limit, other)
		}
	}
	b.Available = max(limit-b.Headroom, 0)
	b.Share = b.Available / b.Replicas
	b.Pool = min(b.Wanted, b.Share)
	if b.Explicit {
		b.Pool = b.Wanted
		return b, nil
	}
	if need := minimumPool(c.Workers); b.Pool < need {
		return b, fmt.Errorf("the database's connections do not go round: %s, fewer than the %d this replica's workers need "+
			"(PORTAL_WORKER_CONCURRENCY plus a quarter of PORTAL_MAIL_CONCURRENCY, and one for web requests). Lower PORTAL_REPLICAS, "+
			"PORTAL_DB_HEADROOM or the workers' concurrency, or raise max_connections", b.Arithmetic(), need)
	}
	return b, nil
}

// minimumPool is the smallest pool that leaves web requests a connection while
// every housekeeping worker holds one, and the e-mail workers theirs: a delivery
// holds a connection only to read and record the message, never while it talks to
// the SMTP server, so a quarter of them at once.
func minimumPool(w WorkerConfig) int {
	if !w.Run {
		return 1
	}
	return w.Concurrency + (w.MailConcurrency+3)/4 + 1
}

// Fits reports whether every replica's pool together stays within the budget.
func (b ConnectionBudget) Fits() bool { return b.Pool*b.Replicas <= b.Available }

// Arithmetic spells the budget out, for the start-up log and its errors:
// "max_connections 100 - 3 reserved - 5 headroom = 92; / 3 replicas = 30 per
// replica; pool 30 (the workers and web requests would use 44)".
func (b ConnectionBudget) Arithmetic() string {
	terms := []string{fmt.Sprintf("max_connections %d - %d reserved", b.Limits.MaxConnections, b.Limits.Reserved)}
	if b.Limits.DatabaseLimit >= 0 {
		terms = append(terms, "database limit "+strconv.Itoa(b.Limits.DatabaseLimit))
	}
	if b.Limits.RoleLimit >= 0 {
		terms = append(terms, "role limit "+strconv.Itoa(b.Limits.RoleLimit))
	}
	limit := terms[0]
	if len(terms) > 1 {
		limit = "min(" + strings.Join(terms, ", ") + ")"
	}
	s := fmt.Sprintf("%s - %d headroom = %d; / %d replicas = %d per replica", limit, b.Headroom, b.Available, b.Replicas, b.Share)
	if b.Explicit {
		return s + fmt.Sprintf("; pool %d (PORTAL_DB_MAX_CONNS)", b.Pool)
	}
	return s + fmt.Sprintf("; pool %d (the workers and web requests would use %d)", b.Pool, b.Wanted)
}
