package documents

import (
	"bytes"
	"context"
	"testing"

	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/testutil/s3server"
)

func testKeyRing(t testing.TB, active string, ids ...string) *fieldcrypt.KeyRing {
	t.Helper()
	keys := map[string][]byte{}
	for i, id := range ids {
		keys[id] = bytes.Repeat([]byte{byte(i + 1)}, fieldcrypt.KeySize)
	}
	r, err := fieldcrypt.NewKeyRing(active, keys)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The encrypting storage keeps every promise of a Storage, streaming, on local disk and on
// S3 (on top of its server-side encryption).
func TestEncryptedLocalStorageContract(t *testing.T) {
	dir := t.TempDir()
	storageContract(t, NewEncryptedStorage(newTestLocalStorage(t, dir), testKeyRing(t, "k1", "k1"), t.TempDir()))
}

func TestEncryptedS3StorageContract(t *testing.T) {
	srv := s3server.Start(t)
	storageContract(t, NewEncryptedStorage(newTestS3Storage(t, srv, srv.Endpoint, "AES256"), testKeyRing(t, "k1", "k1"), t.TempDir()))
}

// What lies in the store is ciphertext: the document's bytes appear nowhere under the
// folder, on local disk or in the S3 server's bucket folder.
func TestEncryptedStorageLeavesNoPlaintextAtRest(t *testing.T) {
	ctx := context.Background()
	marker := []byte("MARKER-voided-check-8d1e5f")
	plain := append(append([]byte("%PDF-1.7\n"), bytes.Repeat(marker, 1000)...), "\n%%EOF\n"...)
	local := t.TempDir()
	srv := s3server.Start(t)
	for name, inner := range map[string]Storage{
		"local": newTestLocalStorage(t, local),
		"s3":    newTestS3Storage(t, srv, srv.Endpoint, "AES256"),
	} {
		s := NewEncryptedStorage(inner, testKeyRing(t, "k1", "k1"), t.TempDir())
		if err := s.Put(ctx, "documents/a/b", bytes.NewReader(plain), int64(len(plain)), ContentTypePDF); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		assertObject(t, s, "documents/a/b", bytes.NewReader(plain), ContentTypePDF)
		if id, err := s.KeyID(ctx, "documents/a/b"); err != nil || id != "k1" {
			t.Errorf("%s: KeyID = %q, %v", name, id, err)
		}
	}
	for _, dir := range []string{local, srv.Dir} {
		if hits := filesContaining(t, dir, marker); len(hits) > 0 {
			t.Errorf("the document's bytes lie in plaintext in %v", hits)
		}
	}
}

// An object stored before encryption still opens as it is, until it is rewritten.
func TestEncryptedStorageReadsPlaintextObjects(t *testing.T) {
	inner := newTestLocalStorage(t, t.TempDir())
	put(t, inner, "documents/old", bytes.NewReader([]byte("%PDF-1.4 old")), ContentTypePDF)
	s := NewEncryptedStorage(inner, testKeyRing(t, "k1", "k1"), t.TempDir())
	assertObject(t, s, "documents/old", bytes.NewReader([]byte("%PDF-1.4 old")), ContentTypePDF)
	if id, err := s.KeyID(context.Background(), "documents/old"); err != nil || id != "" {
		t.Errorf("KeyID of a plaintext object = %q, %v", id, err)
	}
}

func filesContaining(t testing.TB, dir string, needle []byte) []string {
	return testutil.FilesContaining(t, dir, needle)
}
