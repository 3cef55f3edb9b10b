package database

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/pressly/goose/v3"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/payportal/portal/migrations"
)

// migrationLockID is the advisory lock key that serialises migrations, so that
// several instances starting together apply each migration once.
const migrationLockID int64 = 0x706f7274616c // "portal"

func (db *DB) provider() (*goose.Provider, error) {
	return goose.NewProvider(goose.DialectPostgres, db.SQL, migrations.FS)
}

// MigrateUp applies every pending migration of the portal's schema and of River's
// job tables, holding a Postgres advisory lock for the duration.
func (db *DB) MigrateUp(ctx context.Context, log *slog.Logger) error {
	return db.withMigrationLock(ctx, func() error {
		p, err := db.provider()
		if err != nil {
			return err
		}
		results, err := p.Up(ctx)
		for _, r := range results {
			log.Info("migration applied", "version", r.Source.Version, "file", r.Source.Path, "duration", r.Duration)
		}
		if err != nil {
			return fmt.Errorf("migrate up: %w", err)
		}
		migrator, err := rivermigrate.New(riverpgxv5.New(db.Pool), nil)
		if err != nil {
			return fmt.Errorf("river migrator: %w", err)
		}
		river, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil)
		if err != nil {
			return fmt.Errorf("river migrate up: %w", err)
		}
		if len(results) == 0 && len(river.Versions) == 0 {
			return nil
		}
		// Replicas still serving renew their connections (FollowSchemaChanges).
		version := "river"
		if len(results) > 0 {
			version = fmt.Sprint(results[len(results)-1].Source.Version)
		}
		return db.AnnounceSchemaChange(ctx, version)
	})
}

// MigrateDown rolls back the newest migration of the portal's schema.
func (db *DB) MigrateDown(ctx context.Context, log *slog.Logger) error {
	return db.withMigrationLock(ctx, func() error {
		p, err := db.provider()
		if err != nil {
			return err
		}
		r, err := p.Down(ctx)
		if err != nil {
			if errors.Is(err, goose.ErrNoNextVersion) {
				return nil
			}
			return fmt.Errorf("migrate down: %w", err)
		}
		log.Info("migration rolled back", "version", r.Source.Version, "file", r.Source.Path)
		return db.AnnounceSchemaChange(ctx, fmt.Sprint(r.Source.Version))
	})
}

// MigrateReset rolls back every migration; tests use it to check that Down works.
func (db *DB) MigrateReset(ctx context.Context) error {
	return db.withMigrationLock(ctx, func() error {
		p, err := db.provider()
		if err != nil {
			return err
		}
		_, err = p.DownTo(ctx, 0)
		return err
	})
}

// MigrationStatus describes one migration and whether it is applied.
type MigrationStatus struct {
	Version int64
	File    string
	Applied bool
}

// MigrationStatuses lists every known migration with its state.
func (db *DB) MigrationStatuses(ctx context.Context) ([]MigrationStatus, error) {
	p, err := db.provider()
	if err != nil {
		return nil, err
	}
	st, err := p.Status(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]MigrationStatus, 0, len(st))
	for _, s := range st {
		out = append(out, MigrationStatus{Version: s.Source.Version, File: s.Source.Path, Applied: s.State == goose.StateApplied})
	}
	return out, nil
}

// MigrationsCurrent reports whether the schema has every migration this binary knows.
func (db *DB) MigrationsCurrent(ctx context.Context) (bool, error) {
	p, err := db.provider()
	if err != nil {
		return false, err
	}
	pending, err := p.HasPending(ctx)
	return !pending, err
}

func (db *DB) withMigrationLock(ctx context.Context, fn func() error) error {
	conn, err := db.Pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", migrationLockID); err != nil {
		return fmt.Errorf("take migration lock: %w", err)
	}
	defer func() {
		_, _ = conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", migrationLockID)
	}()
	return fn()
}
