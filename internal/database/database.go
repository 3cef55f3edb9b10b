// Package database opens the portal's one PostgreSQL pool and shares it between
// GORM, goose, River and the session store.
package database

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"time"

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
}

// Open connects to url with at most maxConns connections and checks it answers.
func Open(ctx context.Context, url string, maxConns int32, log *slog.Logger) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database URL: %w", err)
	}
	// Web requests, River's workers and its listener all share this pool.
	cfg.MaxConns = maxConns
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
	return &DB{Pool: pool, SQL: sqlDB, Gorm: gdb}, nil
}

// Close releases every connection.
func (db *DB) Close() {
	_ = db.SQL.Close()
	db.Pool.Close()
}
