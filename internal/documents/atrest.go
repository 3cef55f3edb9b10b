package documents

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"
)

// EncryptAtRest makes sure every stored document is encrypted under the active key of the
// ring: objects stored before encryption at rest are encrypted, objects under an older key
// (after a rotation) encrypted again, each while it streams. Progress is kept in the
// database, document by document (documents.encrypted_key_id), so a pass that stops — a
// restart, a crash — resumes where it was, and a finished pass costs one query. It returns
// how many documents it rewrote.
func EncryptAtRest(ctx context.Context, store *Store, storage *EncryptedStorage, log *slog.Logger) (int, error) {
	return encryptAtRest(ctx, store, storage, log, func(int) {})
}

// encryptAtRest is EncryptAtRest telling progress how many documents it has done.
func encryptAtRest(ctx context.Context, store *Store, storage *EncryptedStorage, log *slog.Logger, progress func(done int)) (int, error) {
	active := storage.ActiveKeyID()
	done := 0
	rewritten := 0
	after := uuid.Nil
	for {
		batch, err := store.pendingEncryption(ctx, active, after, 50)
		if err != nil {
			return rewritten, err
		}
		if len(batch) == 0 {
			return rewritten, nil
		}
		for _, d := range batch {
			after = d.id
			keyID, rewrote, err := storage.Reencrypt(ctx, d.key)
			if errors.Is(err, ErrNotFound) {
				log.Warn("document bytes missing from storage; not encrypted", "document_id", d.id)
				continue
			}
			if err != nil {
				return rewritten, fmt.Errorf("document %s: %w", d.id, err)
			}
			if rewrote {
				rewritten++
			}
			if err := store.markEncrypted(ctx, d.id, keyID); err != nil {
				return rewritten, err
			}
			done++
		}
		progress(done)
	}
}

// pendingDocument is a document whose encryption is not yet known to use the active key.
type pendingDocument struct {
	id  uuid.UUID
	key string
}

// pendingEncryption lists documents (deleted ones too: their bytes stay for the audit
// trail) not known to be encrypted under active, after the given id, in id order.
func (s *Store) pendingEncryption(ctx context.Context, active string, after uuid.UUID, limit int) ([]pendingDocument, error) {
	rows, err := s.Pool.Query(ctx, `SELECT id, storage_key FROM documents
		WHERE encrypted_key_id IS DISTINCT FROM $1 AND id > $2 ORDER BY id LIMIT $3`, active, after, limit)
	if err != nil {
		return nil, fmt.Errorf("listing documents to encrypt: %w", err)
	}
	defer rows.Close()
	var out []pendingDocument
	for rows.Next() {
		var d pendingDocument
		if err := rows.Scan(&d.id, &d.key); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// markEncrypted records the key a document's bytes are encrypted under.
func (s *Store) markEncrypted(ctx context.Context, id uuid.UUID, keyID string) error {
	if _, err := s.Pool.Exec(ctx, `UPDATE documents SET encrypted_key_id = $2 WHERE id = $1`, id, keyID); err != nil {
		return fmt.Errorf("recording the encryption of document %s: %w", id, err)
	}
	return nil
}

// EncryptAtRestArgs is the job that runs EncryptAtRest: on start-up, then daily.
type EncryptAtRestArgs struct{}

// Kind names the job for River.
func (EncryptAtRestArgs) Kind() string { return "documents_encrypt_at_rest" }

// EncryptAtRestWorker runs the pass; running it twice, or on two instances, is harmless.
type EncryptAtRestWorker struct {
	river.WorkerDefaults[EncryptAtRestArgs]
	store   *Store
	storage *EncryptedStorage
	log     *slog.Logger
}

// NewEncryptAtRestWorker returns the worker of the pass.
func NewEncryptAtRestWorker(store *Store, storage *EncryptedStorage, log *slog.Logger) *EncryptAtRestWorker {
	return &EncryptAtRestWorker{store: store, storage: storage, log: log}
}

// Timeout lets a pass over many large documents run; one cut short resumes on its retry.
func (w *EncryptAtRestWorker) Timeout(*river.Job[EncryptAtRestArgs]) time.Duration { return time.Hour }

// Work runs the pass.
func (w *EncryptAtRestWorker) Work(ctx context.Context, _ *river.Job[EncryptAtRestArgs]) error {
	n, err := EncryptAtRest(ctx, w.store, w.storage, w.log)
	if n > 0 {
		w.log.Info("documents encrypted at rest", "rewritten", n, "key_id", w.storage.ActiveKeyID())
	}
	return err
}

// EncryptAtRestPeriodicJob runs the pass when the portal starts, and daily after.
func EncryptAtRestPeriodicJob() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(24*time.Hour),
		func() (river.JobArgs, *river.InsertOpts) { return EncryptAtRestArgs{}, nil },
		&river.PeriodicJobOpts{RunOnStart: true})
}
