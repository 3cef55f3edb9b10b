package fieldcrypt

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"testing"
)

func encryptBytes(t *testing.T, r *KeyRing, aad string, plain []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := r.EncryptFile(&buf, aad, int64(len(plain)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(plain); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestFilesRoundTripAtChunkEdges(t *testing.T) {
	r := testRing(t, "k1", "k1")
	for _, n := range []int{0, 1, 64<<10 - 1, 64 << 10, 64<<10 + 1, 3<<20 + 17} {
		plain := make([]byte, n)
		_, _ = rand.Read(plain)
		sealed := encryptBytes(t, r, "documents/a/b", plain)
		if !IsEncryptedFile(sealed) || bytes.Contains(sealed, plain[:min(n, 64)]) && n >= 16 {
			t.Fatalf("%d bytes: the file is not encrypted", n)
		}
		got, info, err := r.DecryptFile(bytes.NewReader(sealed), "documents/a/b")
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		out, err := io.ReadAll(got)
		if err != nil || !bytes.Equal(out, plain) {
			t.Fatalf("%d bytes: read back %d bytes, %v", n, len(out), err)
		}
		if info.Size != int64(n) || info.KeyID != "k1" {
			t.Fatalf("%d bytes: info %+v", n, info)
		}
		if id, err := FileKeyID(bytes.NewReader(sealed)); err != nil || id != "k1" {
			t.Fatalf("FileKeyID = %q, %v", id, err)
		}
	}
}

func TestFilesRefuseTamperingAndOtherNames(t *testing.T) {
	r := testRing(t, "k1", "k1")
	plain := bytes.Repeat([]byte("statement "), 20000)
	sealed := encryptBytes(t, r, "documents/a/b", plain)
	readAll := func(b []byte, aad string) error {
		pr, _, err := r.DecryptFile(bytes.NewReader(b), aad)
		if err != nil {
			return err
		}
		_, err = io.ReadAll(pr)
		return err
	}
	if err := readAll(sealed, "documents/a/other"); err == nil {
		t.Error("a file opened under another name")
	}
	flipped := bytes.Clone(sealed)
	flipped[len(flipped)-100] ^= 1
	if err := readAll(flipped, "documents/a/b"); err == nil {
		t.Error("an altered file read without error")
	}
	if err := readAll(sealed[:len(sealed)-70000], "documents/a/b"); err == nil {
		t.Error("a truncated file read without error")
	}
	if _, _, err := r.DecryptFile(bytes.NewReader(plain), "documents/a/b"); err == nil {
		t.Error("plaintext decrypted")
	}
	if _, err := FileKeyID(bytes.NewReader(plain)); !errors.Is(err, ErrNotEncryptedFile) {
		t.Errorf("FileKeyID of plaintext: %v", err)
	}
}

func TestFilesAfterRotation(t *testing.T) {
	old := testRing(t, "k1", "k1")
	sealed := encryptBytes(t, old, "x", []byte("voided check"))
	rotated := testRing(t, "k2", "k1", "k2")
	pr, info, err := rotated.DecryptFile(bytes.NewReader(sealed), "x")
	if err != nil || info.KeyID != "k1" {
		t.Fatalf("old file after rotation: %v %+v", err, info)
	}
	if b, _ := io.ReadAll(pr); string(b) != "voided check" {
		t.Fatalf("read %q", b)
	}
	fresh := encryptBytes(t, rotated, "x", []byte("new"))
	if id, _ := FileKeyID(bytes.NewReader(fresh)); id != "k2" {
		t.Fatalf("new file wrapped by %q, want k2", id)
	}
	withoutOld := testRing(t, "k2", "k2")
	if _, _, err := withoutOld.DecryptFile(bytes.NewReader(sealed), "x"); err == nil {
		t.Fatal("a file opened without its key")
	}
}

// testRing builds a ring of the given key ids (key i is bytes of value i+1), active first.
func testRing(t *testing.T, active string, ids ...string) *KeyRing {
	t.Helper()
	keys := map[string][]byte{}
	for _, id := range ids {
		keys[id] = key(id[len(id)-1])
	}
	return mustRing(t, active, keys)
}
