package database_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// The limits read are the server's and those set on the database.
func TestReadLimits(t *testing.T) {
	t.Parallel()
	db, dbURL := testdb.NewEmpty(t)
	ctx := context.Background()
	u, _ := url.Parse(dbURL)
	name := strings.TrimPrefix(u.Path, "/")
	if _, err := db.Pool.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s CONNECTION LIMIT 60", name)); err != nil {
		t.Fatal(err)
	}
	l, err := database.ReadLimits(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	var maxConns, reserved int
	if err := db.Pool.QueryRow(ctx, "SELECT current_setting('max_connections')::int, current_setting('superuser_reserved_connections')::int").
		Scan(&maxConns, &reserved); err != nil {
		t.Fatal(err)
	}
	if l.MaxConnections != maxConns || l.Reserved < reserved || l.DatabaseLimit != 60 || l.RoleLimit != -1 {
		t.Errorf("limits %+v; server max_connections %d, reserved %d", l, maxConns, reserved)
	}
}
