package database_test

import (
	"context"
	"errors"
	"testing"

	"gorm.io/gorm"

	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// note is a row written through GORM.
type note struct {
	ID   int `gorm:"primaryKey"`
	Text string
}

func (note) TableName() string { return "tx_notes" }

// What GORM and pgx write in one InTx commits together, or not at all: an error after
// both wrote, or a panic, leaves nothing; GORM cannot end the transaction itself, and
// its nested Transaction is a savepoint inside it.
func TestInTxSharesOneTransactionBetweenGORMAndPgx(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	if _, err := db.Pool.Exec(ctx, `CREATE TABLE tx_notes (id int PRIMARY KEY, text text NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	count := func() int {
		var n int
		if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM tx_notes`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	write := func(tx database.Tx, id int) error {
		if err := tx.Gorm().Create(&note{ID: id, Text: "by GORM"}).Error; err != nil {
			return err
		}
		// pgx sees GORM's uncommitted row: the same transaction.
		var seen int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM tx_notes WHERE id = $1`, id).Scan(&seen); err != nil || seen != 1 {
			return errors.Join(err, errors.New("pgx does not see GORM's row"))
		}
		_, err := tx.Exec(ctx, `INSERT INTO tx_notes (id, text) VALUES ($1, 'by pgx')`, id+1)
		return err
	}

	planned := errors.New("planned failure after both writes")
	if err := db.InTx(ctx, func(tx database.Tx) error {
		if err := write(tx, 1); err != nil {
			return err
		}
		return planned
	}); !errors.Is(err, planned) {
		t.Fatalf("InTx answered %v", err)
	}
	if n := count(); n != 0 {
		t.Fatalf("%d rows left behind by a failed transaction", n)
	}
	func() {
		defer func() { _ = recover() }()
		_ = db.InTx(ctx, func(tx database.Tx) error {
			if err := write(tx, 1); err != nil {
				return err
			}
			panic("planned panic")
		})
	}()
	if n := count(); n != 0 {
		t.Fatalf("%d rows left behind by a panic", n)
	}

	err := db.InTx(ctx, func(tx database.Tx) error {
		if err := write(tx, 1); err != nil {
			return err
		}
		if err := tx.Gorm().Commit().Error; err == nil {
			return errors.New("GORM committed InTx's transaction")
		}
		// A nested GORM transaction that fails rolls back to its savepoint only.
		nested := tx.Gorm().Transaction(func(g *gorm.DB) error {
			if err := g.Create(&note{ID: 10, Text: "nested"}).Error; err != nil {
				return err
			}
			return planned
		})
		if !errors.Is(nested, planned) {
			return errors.Join(nested, errors.New("the nested transaction did not fail"))
		}
		return tx.Gorm().Create(&note{ID: 3, Text: "after the savepoint"}).Error
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 3 {
		t.Fatalf("%d rows committed, want 3 (GORM's, pgx's, and the one after the savepoint)", n)
	}
	// Every connection went back to the pool.
	if st := db.Pool.Stat(); st.AcquiredConns() != 0 {
		t.Fatalf("%d connections still held", st.AcquiredConns())
	}
}
