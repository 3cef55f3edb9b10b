package database

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Querier runs SQL on the pool or inside a transaction: *pgxpool.Pool and pgx.Tx
// both implement it. A store method that takes a Querier works the same in and out
// of a transaction, and the transaction is always a pgx.Tx: the one kind River's
// jobs and the mail outbox can join.
type Querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}
