package testutil

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// FilesContaining lists the files under dir whose bytes contain needle, for tests that
// assert nothing readable lies at rest.
func FilesContaining(t testing.TB, dir string, needle []byte) []string {
	t.Helper()
	var hits []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(b, needle) {
			hits = append(hits, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hits
}
