package database_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/payportal/portal/internal/testutil/testdb"
)

func TestMigrationsUpDownUpOnEmptyDatabase(t *testing.T) {
	t.Parallel()
	db, _ := testdb.NewEmpty(t)
	ctx := context.Background()
	log := slog.New(slog.DiscardHandler)

	current, err := db.MigrationsCurrent(ctx)
	if err != nil || current {
		t.Fatalf("empty database: current=%v err=%v, want pending migrations", current, err)
	}
	if err := db.MigrateUp(ctx, log); err != nil {
		t.Fatalf("first up: %v", err)
	}
	assertTable(t, db.Pool, "users", true)
	if err := db.MigrateReset(ctx); err != nil {
		t.Fatalf("down to zero: %v", err)
	}
	assertTable(t, db.Pool, "users", false)
	if err := db.MigrateUp(ctx, log); err != nil {
		t.Fatalf("second up: %v", err)
	}
	assertTable(t, db.Pool, "users", true)
	current, err = db.MigrationsCurrent(ctx)
	if err != nil || !current {
		t.Fatalf("after up: current=%v err=%v", current, err)
	}
	statuses, err := db.MigrationStatuses(ctx)
	if err != nil || len(statuses) == 0 {
		t.Fatalf("status: %v %v", statuses, err)
	}
	for _, s := range statuses {
		if !s.Applied {
			t.Errorf("migration %s not applied", s.File)
		}
	}
}

func TestConcurrentMigrateUpAppliesOnce(t *testing.T) {
	t.Parallel()
	db, _ := testdb.NewEmpty(t)
	ctx := context.Background()
	errs := make(chan error, 3)
	for range 3 {
		go func() { errs <- db.MigrateUp(ctx, slog.New(slog.DiscardHandler)) }()
	}
	for range 3 {
		if err := <-errs; err != nil {
			t.Fatalf("concurrent up: %v", err)
		}
	}
	assertTable(t, db.Pool, "applications", true)
}
