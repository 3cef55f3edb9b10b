package database

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Limits are the server's limits on connections that bear on the portal's
// pool: max_connections, the slots reserved for superusers (and, from
// PostgreSQL 16, for pg_use_reserved_connections), and the CONNECTION LIMIT of
// the database and of the portal's role (-1: none).
type Limits struct {
	MaxConnections int
	Reserved       int
	DatabaseLimit  int
	RoleLimit      int
}

// ReadLimits reads the limits over one connection of its own, before the pool
// is sized and opened.
func ReadLimits(ctx context.Context, url string) (Limits, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return Limits{}, fmt.Errorf("connect to database: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var l Limits
	err = conn.QueryRow(ctx, `SELECT current_setting('max_connections')::int,
		  current_setting('superuser_reserved_connections')::int
		    + coalesce(current_setting('reserved_connections', true)::int, 0),
		  (SELECT datconnlimit FROM pg_database WHERE datname = current_database()),
		  (SELECT rolconnlimit FROM pg_roles WHERE rolname = current_user)`).
		Scan(&l.MaxConnections, &l.Reserved, &l.DatabaseLimit, &l.RoleLimit)
	if err != nil {
		return Limits{}, fmt.Errorf("read the database's connection limits: %w", err)
	}
	return l, nil
}
