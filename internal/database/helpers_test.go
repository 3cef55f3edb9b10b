package database_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

func assertTable(t *testing.T, pool *pgxpool.Pool, name string, want bool) {
	t.Helper()
	var exists bool
	err := pool.QueryRow(context.Background(), "SELECT to_regclass($1) IS NOT NULL", "public."+name).Scan(&exists)
	if err != nil {
		t.Fatal(err)
	}
	if exists != want {
		t.Fatalf("table %s exists=%v, want %v", name, exists, want)
	}
}
