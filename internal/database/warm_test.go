package database_test

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// A warm-up runs on the connections the pool holds when it is added and on every
// connection opened later; one that fails leaves the connection usable.
func TestWarmConnectionsRunsOnEveryConnection(t *testing.T) {
	t.Parallel()
	_, url := testdb.NewWithURL(t)
	ctx := context.Background()
	db, err := database.Open(ctx, url, 4, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var warmed atomic.Int32
	db.WarmConnections(ctx, func(ctx context.Context, conn *pgx.Conn) error {
		warmed.Add(1)
		_, err := conn.Exec(ctx, "SET application_name = 'warmed'")
		return err
	})
	db.WarmConnections(ctx, func(context.Context, *pgx.Conn) error { return errors.New("planned failure") })
	if n := warmed.Load(); n != 1 {
		t.Fatalf("warmed %d idle connections, want the one Open made", n)
	}
	// Hold one connection so that the next acquisition opens another.
	held, err := db.Pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	var name string
	if err := db.Pool.QueryRow(ctx, "SELECT current_setting('application_name')").Scan(&name); err != nil {
		t.Fatal(err)
	}
	if name != "warmed" || warmed.Load() != 2 {
		t.Fatalf("a new connection: application_name %q, %d warm-ups", name, warmed.Load())
	}
}
