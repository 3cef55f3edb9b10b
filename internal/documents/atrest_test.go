package documents_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/documents"
	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/testutil/apptest"
)

// Documents stored before encryption at rest are encrypted by the start-up pass, once and
// resumably: a pass cut short between storing an object and recording it does not encrypt
// twice, and a finished pass finds nothing left. A key rotation makes the next pass
// encrypt every document again under the new key, and the old key is no longer needed.
func TestEncryptAtRestMigratesPlaintextAndRotates(t *testing.T) {
	t.Parallel()
	oldKey, newKey := bytes.Repeat([]byte{7}, 32), bytes.Repeat([]byte{9}, 32)
	env := apptest.New(t, apptest.WithoutWorkers(),
		apptest.WithEnv("PORTAL_ENCRYPTION_KEYS", "old:"+base64.StdEncoding.EncodeToString(oldKey)))
	ctx := context.Background()
	owner, _ := env.CreateUser(t, "rep@example.com", models.RoleSalesRep)
	a := newApplication(t, env, owner)
	plain, err := documents.NewLocalStorage(env.Config.Storage.LocalDir)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	store := documents.NewStore(env.DB)
	contents := map[string][]byte{}
	var keys []string
	for i := range 3 {
		id := uuid.New()
		key := documents.StorageKey(a.ID, id)
		body := append(bytes.Clone(samplePDF), []byte("MARKER-legacy-"+id.String())...)
		if err := plain.Put(ctx, key, bytes.NewReader(body), int64(len(body)), documents.ContentTypePDF); err != nil {
			t.Fatal(err)
		}
		doc := models.Document{ID: id, ApplicationID: a.ID, DocType: "bank_statement", DisplayName: "s.pdf", ContentType: documents.ContentTypePDF,
			SizeBytes: int64(len(body)), SHA256: "x", StorageKey: key, CreatedAt: time.Now().Add(time.Duration(i) * time.Second), UpstreamStatus: "pending"}
		if err := env.DB.Gorm.Create(&doc).Error; err != nil {
			t.Fatal(err)
		}
		contents[key] = body
		keys = append(keys, key)
	}
	// A pass that stopped after storing the second object encrypted, before recording it.
	if _, _, err := env.App.DocumentStorage.(*documents.EncryptedStorage).Reencrypt(ctx, keys[1]); err != nil {
		t.Fatal(err)
	}

	ring := func(active string) *fieldcrypt.KeyRing {
		r, err := fieldcrypt.NewKeyRing(active, map[string][]byte{"old": oldKey, "new": newKey})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	log := slog.New(slog.DiscardHandler)
	for _, step := range []struct {
		active    string
		rewritten int
	}{{"old", 2}, {"old", 0}, {"new", 3}, {"new", 0}} {
		storage := documents.NewEncryptedStorage(plain, ring(step.active), t.TempDir())
		n, err := documents.EncryptAtRest(ctx, store, storage, log)
		if err != nil || n != step.rewritten {
			t.Fatalf("pass under %s: rewrote %d, %v; want %d", step.active, n, err, step.rewritten)
		}
		var pending int
		if err := env.DB.SQL.QueryRow(`SELECT count(*) FROM documents WHERE encrypted_key_id IS DISTINCT FROM $1`, step.active).Scan(&pending); err != nil || pending != 0 {
			t.Fatalf("after the pass under %s: %d documents left, %v", step.active, pending, err)
		}
	}
	newOnly, err := fieldcrypt.NewKeyRing("new", map[string][]byte{"new": newKey})
	if err != nil {
		t.Fatal(err)
	}
	storage := documents.NewEncryptedStorage(plain, newOnly, t.TempDir())
	for key, want := range contents {
		body, info, err := storage.Open(ctx, key)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		got, _ := io.ReadAll(body)
		body.Close()
		if !bytes.Equal(got, want) || info.Size != int64(len(want)) {
			t.Errorf("%s: read back %d bytes (info %d), want the %d uploaded", key, len(got), info.Size, len(want))
		}
	}
	if hits := testutil.FilesContaining(t, env.Config.Storage.LocalDir, []byte("MARKER-legacy-")); len(hits) > 0 {
		t.Errorf("plaintext left at rest: %v", hits)
	}
}
