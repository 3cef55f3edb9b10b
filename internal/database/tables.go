package database

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Tables is what a room's pgx store embeds: its pool, a transaction of its
// own, and the querier each method runs on. Every store method takes a
// Querier: nil for the pool, or the pgx.Tx of a use case that also writes the
// audit entry, River's insert or the outbox's message in it.
type Tables struct{ Pool *pgxpool.Pool }

// InTx runs fn in one transaction, committed when fn returns nil.
func (t Tables) InTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, t.Pool, fn)
}

// On is q, or the pool when q is nil.
func (t Tables) On(q Querier) Querier {
	if q == nil {
		return t.Pool
	}
	return q
}
