// Package testdb gives each test a fresh, fully migrated PostgreSQL database,
// cloned from a template so that creating one takes milliseconds.
//
// It needs PORTAL_TEST_DATABASE_URL, a URL of the test cluster with rights to
// create databases; `make test` starts that cluster and sets it.
package testdb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/migrations"
)

// URLVar names the environment variable holding the test cluster's URL.
const URLVar = "PORTAL_TEST_DATABASE_URL"

// New creates an empty database migrated to the newest schema, drops it when
// the test ends, and returns an open handle to it.
func New(t testing.TB) *database.DB {
	t.Helper()
	db, _ := NewWithURL(t)
	return db
}

// NewWithURL is New that also returns the database's URL, for tests that start
// a second process or a second pool on it.
func NewWithURL(t testing.TB) (*database.DB, string) {
	t.Helper()
	dbURL := createFromTemplate(t, true)
	db, err := database.Open(context.Background(), dbURL, 20, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("open test database: %v", err)
	}
	t.Cleanup(db.Close)
	return db, dbURL
}

// NewEmpty creates a database with no schema at all, for migration tests.
func NewEmpty(t testing.TB) (*database.DB, string) {
	t.Helper()
	dbURL := createFromTemplate(t, false)
	db, err := database.Open(context.Background(), dbURL, 8, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("open test database: %v", err)
	}
	t.Cleanup(db.Close)
	return db, dbURL
}

func createFromTemplate(t testing.TB, migrated bool) string {
	t.Helper()
	base := os.Getenv(URLVar)
	if base == "" {
		t.Fatalf("%s is not set: run the tests with `make test`, which starts a test PostgreSQL cluster", URLVar)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to test cluster: %v", err)
	}
	defer admin.Close(ctx)

	template := "template0"
	if migrated {
		template, err = ensureTemplate(ctx, admin, base)
		if err != nil {
			t.Fatalf("prepare template database: %v", err)
		}
	}
	name := "t_" + strings.ReplaceAll(uuid.NewString(), "-", "")
	if _, err := admin.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", name, template)); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			return
		}
		defer c.Close(ctx)
		_, _ = c.Exec(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name))
	})
	return withDatabase(base, name)
}

// ensureTemplate creates, once per version of the migrations, a template
// database holding the migrated schema. An advisory lock keeps test packages
// running in parallel from building it twice.
func ensureTemplate(ctx context.Context, admin *pgx.Conn, base string) (string, error) {
	name := "tmpl_" + migrationsHash()
	if _, err := admin.Exec(ctx, "SELECT pg_advisory_lock(4242)"); err != nil {
		return "", err
	}
	defer admin.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock(4242)")
	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return "", err
	}
	if exists {
		return name, nil
	}
	building := name + "_build"
	_, _ = admin.Exec(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", building))
	if _, err := admin.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE template0", building)); err != nil {
		return "", err
	}
	db, err := database.Open(ctx, withDatabase(base, building), 4, slog.New(slog.DiscardHandler))
	if err != nil {
		return "", err
	}
	err = db.MigrateUp(ctx, slog.New(slog.DiscardHandler))
	db.Close()
	if err != nil {
		return "", err
	}
	// Renaming last means a half-built template is never used.
	if _, err := admin.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s RENAME TO %s", building, name)); err != nil {
		return "", err
	}
	return name, nil
}

func migrationsHash() string {
	h := sha256.New()
	_ = fs.WalkDir(migrations.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := fs.ReadFile(migrations.FS, path)
		h.Write([]byte(path))
		h.Write(b)
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func withDatabase(base, name string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	u.Path = "/" + name
	return u.String()
}
