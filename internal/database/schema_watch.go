package database

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// schemaChannel is the channel an instance notifies once it has migrated.
const schemaChannel = "portal_schema_changed"

// schemaRenewals counts the pool renewals of this process, for tests.
type schemaRenewals struct{ n atomic.Int64 }

// AnnounceSchemaChange tells every instance following schema changes that the
// schema is now version: MigrateUp and MigrateDown call it once they changed
// anything.
func (db *DB) AnnounceSchemaChange(ctx context.Context, version string) error {
	if _, err := db.Pool.Exec(ctx, "SELECT pg_notify($1, $2)", schemaChannel, version); err != nil {
		return fmt.Errorf("announce the schema change: %w", err)
	}
	return nil
}

// FollowSchemaChanges renews this instance's connections whenever another
// instance migrates the schema, until ctx ends. Each connection caches the
// statements it ran, prepared with their plans; after a column is added, a
// cached `SELECT *` fails once ("cached plan must not change result type"),
// so during a rolling upgrade every old replica would fail one request per
// connection and statement. It holds one of the pool's connections.
func (db *DB) FollowSchemaChanges(ctx context.Context) {
	for ctx.Err() == nil {
		err := db.listenForSchemaChanges(ctx)
		if ctx.Err() != nil {
			return
		}
		db.log.Warn("schema changes of other instances not followed; listening again", "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

func (db *DB) listenForSchemaChanges(ctx context.Context) error {
	conn, err := db.Pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "LISTEN "+schemaChannel); err != nil {
		return err
	}
	for {
		n, err := conn.Conn().WaitForNotification(ctx)
		if err != nil {
			return err
		}
		// Idle connections close now, busy ones when released: in-flight work
		// finishes, and every new connection plans afresh.
		db.Pool.Reset()
		db.renewals.n.Add(1)
		db.log.Info("the schema changed (an instance migrated): database connections renewed", "version", n.Payload)
	}
}
