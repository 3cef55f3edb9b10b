package database_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// A replica whose connections cached `SELECT *` before another replica added
// a column renews them when told, so its next query does not fail with
// "cached plan must not change result type".
func TestConnectionsRenewedWhenAnotherInstanceMigrates(t *testing.T) {
	t.Parallel()
	other, dbURL := testdb.NewWithURL(t)
	ctx := context.Background()
	if _, err := other.Pool.Exec(ctx, "CREATE TABLE shops (id int PRIMARY KEY, name text); INSERT INTO shops VALUES (1, 'Fern')"); err != nil {
		t.Fatal(err)
	}
	serving, err := database.Open(ctx, dbURL, 4, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer serving.Close()
	follow, stop := context.WithCancel(ctx)
	defer stop()
	go serving.FollowSchemaChanges(follow)
	testutil.Eventually(t, 10*time.Second, "the replica to listen", func() (bool, string) {
		var n int
		_ = other.Pool.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE query = 'LISTEN portal_schema_changed'").Scan(&n)
		return n == 1, fmt.Sprint(n, " listening")
	})
	selectAll := func() error {
		rows, err := serving.Pool.Query(ctx, "SELECT * FROM shops WHERE id = $1", 1)
		if err != nil {
			return err
		}
		rows.Close()
		return rows.Err()
	}
	if err := selectAll(); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Pool.Exec(ctx, "ALTER TABLE shops ADD COLUMN phone text"); err != nil {
		t.Fatal(err)
	}
	if err := other.AnnounceSchemaChange(ctx, "42"); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 10*time.Second, "the replica to renew its connections", func() (bool, string) {
		return serving.SchemaRenewals() == 1, "not yet"
	})
	if err := selectAll(); err != nil {
		t.Errorf("the first query after the migration: %v", err)
	}
}

// During a rolling upgrade an old replica meets a schema a newer one migrated:
// it stays ready, and restarting it migrates nothing and fails nothing.
func TestAnOldReplicaOnANewerSchema(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	if _, err := db.Pool.Exec(ctx, "INSERT INTO goose_db_version (version_id, is_applied) VALUES (99991231000100, true)"); err != nil {
		t.Fatal(err)
	}
	if current, err := db.MigrationsCurrent(ctx); err != nil || !current {
		t.Errorf("an old replica on a newer schema: current %v, %v", current, err)
	}
	if err := db.MigrateUp(ctx, slog.New(slog.DiscardHandler)); err != nil {
		t.Errorf("an old replica restarting on a newer schema: %v", err)
	}
}
