package documents

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/google/uuid"
)

// SealedFiles are the stored documents as the key ring's registry sees them (internal/keys
// reads them as keys.Files): counted by the key documents.encrypted_key_id records,
// re-sealed by the at-rest pass, and read back against the SHA-256 taken at upload.
type SealedFiles struct {
	store   *Store
	storage *EncryptedStorage
	log     *slog.Logger
}

// NewSealedFiles returns the documents of store, kept in storage.
func NewSealedFiles(store *Store, storage *EncryptedStorage, log *slog.Logger) *SealedFiles {
	return &SealedFiles{store: store, storage: storage, log: log}
}

// Place names them.
func (f *SealedFiles) Place() string { return "documents" }

// CountByKey counts documents (deleted ones too: their bytes stay) by the key their file
// is recorded under; "" counts those the at-rest pass has not looked at yet.
func (f *SealedFiles) CountByKey(ctx context.Context) (map[string]int, error) {
	rows, err := f.store.Pool.Query(ctx, `SELECT coalesce(encrypted_key_id, ''), count(*) FROM documents GROUP BY 1`)
	if err != nil {
		return nil, fmt.Errorf("counting documents by key: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var key string
		var n int
		if err := rows.Scan(&key, &n); err != nil {
			return nil, err
		}
		out[key] = n
	}
	return out, rows.Err()
}

// Rotate runs the at-rest pass, which rewrites every document not recorded under the
// active key, resumably.
func (f *SealedFiles) Rotate(ctx context.Context, progress func(done, total int)) (int, error) {
	var total int
	err := f.store.Pool.QueryRow(ctx, `SELECT count(*) FROM documents WHERE encrypted_key_id IS DISTINCT FROM $1`,
		f.storage.ActiveKeyID()).Scan(&total)
	if err != nil {
		return 0, fmt.Errorf("counting documents to re-seal: %w", err)
	}
	progress(0, total)
	return encryptAtRest(ctx, f.store, f.storage, f.log, func(done int) { progress(done, total) })
}

// Verify reads every document's bytes back and checks their size and SHA-256 against
// those taken at upload; it returns how many it read and the documents that differ or
// are missing.
func (f *SealedFiles) Verify(ctx context.Context) (int, error) {
	rows, err := f.store.Pool.Query(ctx, `SELECT id, storage_key, size_bytes, sha256 FROM documents ORDER BY id`)
	if err != nil {
		return 0, fmt.Errorf("listing documents: %w", err)
	}
	type stored struct {
		id        uuid.UUID
		key, hash string
		size      int64
	}
	var docs []stored
	for rows.Next() {
		var d stored
		if err := rows.Scan(&d.id, &d.key, &d.size, &d.hash); err != nil {
			rows.Close()
			return 0, err
		}
		docs = append(docs, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	var problems []string
	for _, d := range docs {
		if err := f.verifyOne(ctx, d.key, d.size, d.hash); err != nil {
			problems = append(problems, fmt.Sprintf("document %s: %v", d.id, err))
		}
	}
	if len(problems) > 0 {
		return len(docs), errors.New(strings.Join(problems, "; "))
	}
	return len(docs), nil
}

func (f *SealedFiles) verifyOne(ctx context.Context, key string, size int64, hash string) error {
	body, _, err := f.storage.Open(ctx, key)
	if err != nil {
		return err
	}
	defer body.Close()
	h := sha256.New()
	n, err := io.Copy(h, body)
	switch {
	case err != nil:
		return err
	case n != size:
		return fmt.Errorf("%d bytes, the row says %d", n, size)
	case hex.EncodeToString(h.Sum(nil)) != hash:
		return errors.New("its SHA-256 differs from the one taken at upload")
	}
	return nil
}
