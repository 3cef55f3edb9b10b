package app_test

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/app"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/testutil/apptest"
	"github.com/payportal/portal/internal/testutil/portalproc"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// The restore drill of docs/operations.md ("Backup and restore"), on a portal holding every
// kind of sealed value and documents: the database is dumped (pg_dump) and the document
// store copied; both are restored into a fresh database and a fresh folder; the portal
// binary starts on them (its key check passes, /readyz answers), `portal keys verify` reads
// every sealed value and every document back, and every value and document is the same,
// byte for byte, as before the backup.
func TestBackupRestoresEverySealedValueAndDocument(t *testing.T) {
	for _, tool := range []string{"pg_dump", "pg_restore"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed (Debian's postgresql-client, which make test installs with PostgreSQL)", tool)
		}
	}
	ctx := context.Background()
	bin := portalproc.Build(t)
	ring := "k1:" + newKey()
	storage := t.TempDir()
	env := sealedPortal(t, ring, storage)
	values := readBack(t, env.App.Keys)
	documents := documentBytes(t, env)

	// The backup: a dump of the database and a copy of the document store.
	dump := filepath.Join(t.TempDir(), "portal.dump")
	if out, err := exec.CommandContext(ctx, "pg_dump", "--format=custom", "--file="+dump, "--dbname="+env.DBURL).CombinedOutput(); err != nil {
		t.Fatalf("pg_dump: %v\n%s", err, out)
	}
	restoredStorage := t.TempDir()
	copyTree(t, storage, restoredStorage)

	// The restore, into a fresh database and a fresh folder.
	_, restoredURL := testdb.NewEmpty(t)
	if out, err := exec.CommandContext(ctx, "pg_restore", "--no-owner", "--exit-on-error", "--dbname="+restoredURL, dump).CombinedOutput(); err != nil {
		t.Fatalf("pg_restore: %v\n%s", err, out)
	}
	vars := keyVars(env, restoredStorage, ring, "k1")
	vars["PORTAL_DATABASE_URL"] = restoredURL
	vars["PORTAL_LISTEN_ADDR"] = "127.0.0.1:0"

	// The portal starts on them and is ready.
	p := portalproc.Start(t, bin, vars)
	if !p.WaitStarted(t, 2*time.Minute) {
		t.Fatalf("the portal did not start on the restored data:\n%s", p.Output())
	}
	addr := regexp.MustCompile(`"?addr"?[=:]"?(127\.0\.0\.1:\d+)`).FindStringSubmatch(p.Output())
	if addr == nil {
		t.Fatalf("no address in the portal's output:\n%s", p.Output())
	}
	res, err := http.Get("http://" + addr[1] + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("/readyz on the restored portal: %d", res.StatusCode)
	}
	verify := exec.CommandContext(ctx, bin, "keys", "verify")
	verify.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for k, v := range vars {
		verify.Env = append(verify.Env, k+"="+v)
	}
	out, err := verify.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("every one as stored")) {
		t.Errorf("portal keys verify on the restored data: %v\n%s", err, out)
	}

	// Every sealed value and document reads back as it was.
	restored, err := app.NewKeys(ctx, loadConfig(t, vars), openDB(t, restoredURL), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	// (The restored portal's start seals the hand-off links the showcase stored in the
	// clear, so it holds those as sealed values too.)
	if !sameValues(t, readBack(t, restored), values) {
		t.Error("the restored values differ")
	}
	restoredEnv := apptest.New(t, apptest.WithDatabaseURL(restoredURL), apptest.WithoutWorkers(),
		apptest.WithEnv("PORTAL_ENCRYPTION_KEYS", ring), apptest.WithEnv("PORTAL_STORAGE_DIR", restoredStorage))
	got := documentBytes(t, restoredEnv)
	if len(got) != len(documents) || len(documents) == 0 {
		t.Errorf("%d documents restored, %d before", len(got), len(documents))
	}
	for key, b := range documents {
		if !bytes.Equal(got[key], b) {
			t.Errorf("document %s differs after the restore", key)
		}
	}
}

// documentBytes reads every stored document's plaintext through env's storage (deleted
// documents too): storage key → bytes.
func documentBytes(t *testing.T, env *apptest.Env) map[string][]byte {
	t.Helper()
	ctx := context.Background()
	rows, err := env.DB.Pool.Query(ctx, `SELECT storage_key FROM documents`)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, key := range keys {
		body, _, err := env.App.DocumentStorage.Open(ctx, key)
		if err != nil {
			t.Fatalf("open %s: %v", key, err)
		}
		b, err := io.ReadAll(body)
		_ = body.Close()
		if err != nil {
			t.Fatalf("read %s: %v", key, err)
		}
		out[key] = b
	}
	return out
}

// openDB opens a second pool on a database.
func openDB(t *testing.T, url string) *database.DB {
	t.Helper()
	db, err := database.Open(context.Background(), url, 4, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	return db
}

// copyTree copies the files under src into dst, as a backup of a local document store.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o700)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(testutil.FilesContaining(t, dst, []byte("age-encryption.org/v1"))) == 0 {
		t.Fatal("the document store holds no encrypted document to restore")
	}
}
