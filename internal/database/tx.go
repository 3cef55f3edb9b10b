package database

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/gorm"
)

// Tx is one database transaction as both of the portal's ways to the database see it:
// it is a pgx.Tx (the rooms written in SQL, audit.Record, River's InsertTx, the mail
// outbox), and Gorm runs GORM's statements (auth, pricing) on the same connection,
// inside the same transaction. A use case that needs both opens it with DB.InTx.
type Tx struct {
	pgx.Tx
	gorm *gorm.DB
}

// Gorm is the transaction seen through GORM, a fresh session each call (so that an
// error of one chain never sticks to the next). Its Transaction method nests (a
// savepoint); it never commits: DB.InTx does.
func (t Tx) Gorm() *gorm.DB { return t.gorm.Session(&gorm.Session{NewDB: true}) }

// errOwnedByInTx refuses GORM's attempts to end a transaction DB.InTx owns.
var errOwnedByInTx = errors.New("database: the transaction is committed or rolled back by DB.InTx, not through GORM")

// InTx runs fn in one transaction and commits it when fn returns nil; otherwise, or if
// fn panics, it rolls back. The transaction is pgx's, on a connection of the pool;
// GORM reaches that same connection through pgx's database/sql driver (stdlib), so
// what fn writes through either commits or rolls back together.
func (db *DB) InTx(ctx context.Context, fn func(Tx) error) error {
	dc, err := stdlib.GetPoolConnector(db.Pool).Connect(ctx)
	if err != nil {
		return fmt.Errorf("database: acquire a connection: %w", err)
	}
	conn, ok := dc.(*stdlib.Conn)
	if !ok {
		_ = dc.Close()
		return fmt.Errorf("database: pgx's connector gave a %T", dc)
	}
	defer conn.Close() // hands the connection back to the pool, after the rollback below
	tx, err := conn.Conn().Begin(ctx)
	if err != nil {
		return fmt.Errorf("database: begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	// A database/sql pool of this one connection, which it never closes or resets.
	one := sql.OpenDB(borrowedConnector{conn: conn})
	defer one.Close()
	one.SetMaxOpenConns(1)
	g := db.Gorm.Session(&gorm.Session{Context: ctx, NewDB: true})
	g.Statement.ConnPool = &txConnPool{one}
	if err := fn(Tx{Tx: tx, gorm: g}); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("database: commit: %w", err)
	}
	return nil
}

// borrowedConnector hands database/sql the one connection of a transaction.
type borrowedConnector struct{ conn *stdlib.Conn }

func (b borrowedConnector) Connect(context.Context) (driver.Conn, error) {
	return borrowedConn{b.conn}, nil
}

func (b borrowedConnector) Driver() driver.Driver { return stdlib.GetDefaultDriver() }

// borrowedConn is pgx's database/sql connection lent for one transaction: database/sql
// must neither close it (InTx hands it back to the pool) nor reset it between
// statements (stdlib refuses a connection that is inside a transaction).
type borrowedConn struct{ *stdlib.Conn }

func (borrowedConn) Close() error                       { return nil }
func (borrowedConn) ResetSession(context.Context) error { return nil }

// txConnPool is GORM's view of the transaction: statements only. Being a
// gorm.TxCommitter makes GORM treat it as a transaction already open, so a nested
// Transaction call takes a savepoint rather than beginning a second one. (A pointer:
// GORM asks whether the committer is nil by reflection.)
type txConnPool struct{ db *sql.DB }

func (p *txConnPool) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return p.db.PrepareContext(ctx, query)
}

func (p *txConnPool) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return p.db.ExecContext(ctx, query, args...)
}

func (p *txConnPool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return p.db.QueryContext(ctx, query, args...)
}

func (p *txConnPool) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return p.db.QueryRowContext(ctx, query, args...)
}

func (*txConnPool) Commit() error   { return errOwnedByInTx }
func (*txConnPool) Rollback() error { return errOwnedByInTx }
