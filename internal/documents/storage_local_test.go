package documents

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func newTestLocalStorage(t *testing.T, dir string) *LocalStorage {
	t.Helper()
	s, err := NewLocalStorage(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestLocalStorageContract(t *testing.T) {
	dir := t.TempDir()
	storageContract(t, newTestLocalStorage(t, dir))

	// Every failed Put in the contract must have removed its temporary file.
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), localTempPrefix) {
			t.Errorf("temporary file left behind: %s", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestLocalStorageStaysInsideItsDirectory(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	s := newTestLocalStorage(t, dir)
	// A symlink planted in the storage directory must not lead writes out.
	if err := os.Symlink(outside, filepath.Join(dir, "documents")); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(context.Background(), "documents/x", bytes.NewReader([]byte("x")), 1, "text/plain"); err == nil {
		t.Fatal("Put followed a symlink out of the storage directory")
	}
	entries, err := os.ReadDir(outside)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Fatalf("files written outside the storage directory: %v", entries)
	}
}

func TestLocalStorageRefusesForeignFiles(t *testing.T) {
	dir := t.TempDir()
	s := newTestLocalStorage(t, dir)
	if err := os.MkdirAll(filepath.Join(dir, "documents"), 0o750); err != nil {
		t.Fatal(err)
	}
	// A file that did not come from Put has no header; reading it as an
	// object would serve wrong bytes under a made-up type.
	if err := os.WriteFile(filepath.Join(dir, "documents", "foreign"), []byte("%PDF-1.7"), 0o640); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Open(context.Background(), "documents/foreign"); err == nil {
		t.Fatal("Open accepted a file without an object header")
	}
}
