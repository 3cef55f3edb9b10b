// Package database opens the portal's one PostgreSQL pool and shares it between
// GORM, goose, River and the session store.
package database

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// DB bundles the views of one connection pool that the rest of the code needs.
type DB struct {
	Pool *pgxpool.Pool
	SQL  *sql.DB
	Gorm *gorm.DB

	log      *slog.Logger
	mu       sync.Mutex
	warmers  []Warmer
	renewals schemaRenewals
}

// Warmer prepares a new connection before it serves anything, for instance by planning
// the statements a room runs most, so that the first request on the connection does not
// pay for loading the catalogue. A failure is logged; the connection is used anyway.
type Warmer func(ctx context.Context, conn *pgx.Conn) error

// warmTimeout bounds the warm-up of one connection.
const warmTimeout = 5 * time.Second

// WarmConnections adds a warm-up for every connection the pool opens from now on, and
// runs it at once on the idle ones it holds already. Call it while wiring the portal.
func (db *DB) WarmConnections(ctx context.Context, w Warmer) {
	db.mu.Lock()
	db.warmers = append(db.warmers, w)
	db.mu.Unlock()
	for _, c := range db.Pool.AcquireAllIdle(ctx) {
		db.warm(ctx, c.Conn(), []Warmer{w})
		c.Release()
	}
}

// warm runs warmers on conn, logging what fails.
func (db *DB) warm(ctx context.Context, conn *pgx.Conn, warmers []Warmer) {
	ctx, cancel := context.WithTimeout(ctx, warmTimeout)
	defer cancel()
	for _, w := range warmers {
		if err := w(ctx, conn); err != nil && db.log != nil {
			db.log.Warn("database connection not warmed", "err", err)
		}
	}
}

// Open connects to url with at most maxConns connections and checks it answers.
func Open(ctx context.Context, url string, maxConns int32, log *slog.Logger) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database URL: %w", err)
	}
	// Web requests, River's workers and its listener all share this pool.
	cfg.MaxConns = maxConns
	db := &DB{log: log}
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		db.mu.Lock()
		warmers := db.warmers
		db.mu.Unlock()
		db.warm(ctx, conn, warmers)
		return nil
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pingCtx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	sqlDB := stdlib.OpenDBFromPool(pool)
	gdb, err := gorm.Open(postgres.New(postgres.Config{Conn: sqlDB}), &gorm.Config{
		Logger:                 logger.Discard,
		SkipDefaultTransaction: true,
		TranslateError:         true,
	})
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("open gorm: %w", err)
	}
	db.Pool, db.SQL, db.Gorm = pool, sqlDB, gdb
	return db, nil
}

// Close releases every connection.
func (db *DB) Close() {
	_ = db.SQL.Close()
	db.Pool.Close()
}
