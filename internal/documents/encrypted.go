package documents

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/payportal/portal/internal/fieldcrypt"
)

// FileKeyRing encrypts and decrypts files (*fieldcrypt.KeyRing).
type FileKeyRing interface {
	EncryptFile(dst io.Writer, aad string, size int64) (io.WriteCloser, error)
	DecryptFile(src io.Reader, aad string) (io.Reader, fieldcrypt.FileInfo, error)
	ActiveKeyID() string
}

// EncryptedStorage keeps every object encrypted at rest in the storage it wraps (local disk,
// or S3 on top of its server-side encryption): a random file key per object, wrapped by the
// key ring, and age's chunked authenticated encryption of the bytes (see fieldcrypt's
// files.go), bound to the object's key so a file copied under another key does not open.
// Put encrypts while it copies, Open decrypts while the caller reads: a file is never whole
// in memory, and Open reports the plaintext's size, so downloads and the proxy to the
// upstream send the exact Content-Length.
//
// Objects stored before encryption (plaintext) still open as they are, until
// EncryptAtRest has rewritten them.
type EncryptedStorage struct {
	inner    Storage
	ring     FileKeyRing
	spoolDir string
}

var _ Storage = (*EncryptedStorage)(nil)

// NewEncryptedStorage wraps inner. The ciphertext is staged in spoolDir ("" for the system's
// temporary folder) before it is stored, since Put needs a body of known size it can seek.
func NewEncryptedStorage(inner Storage, ring FileKeyRing, spoolDir string) *EncryptedStorage {
	return &EncryptedStorage{inner: inner, ring: ring, spoolDir: spoolDir}
}

// Put encrypts size bytes of body and stores them under key.
func (s *EncryptedStorage) Put(ctx context.Context, key string, body io.ReadSeeker, size int64, contentType string) error {
	if err := checkPut(key, body, size, contentType); err != nil {
		return err
	}
	return s.put(ctx, key, body, size, contentType)
}

// put encrypts size bytes of plain into a spool file, then stores the ciphertext.
func (s *EncryptedStorage) put(ctx context.Context, key string, plain io.Reader, size int64, contentType string) error {
	sp, err := newSpool(s.spoolDir)
	if err != nil {
		return err
	}
	defer sp.close()
	w, err := s.ring.EncryptFile(sp.f, objectAAD(key), size)
	if err != nil {
		return fmt.Errorf("documents: encrypting %s: %w", key, err)
	}
	n, err := io.Copy(w, contextReader{ctx: ctx, r: plain})
	if err != nil {
		return fmt.Errorf("documents: encrypting %s: %w", key, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("documents: encrypting %s: %w", key, err)
	}
	if n != size {
		return fmt.Errorf("documents: %s held %d bytes, not the declared %d", key, n, size)
	}
	end, err := sp.f.Seek(0, io.SeekCurrent)
	if err != nil {
		return fmt.Errorf("documents: measuring %s: %w", key, err)
	}
	if _, err := sp.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("documents: rewinding %s: %w", key, err)
	}
	return s.inner.Put(ctx, key, sp.f, end, contentType)
}

// Reencrypt rewrites the object under key with the active key, streaming: a plaintext
// object (stored before encryption at rest) is encrypted, one under an older key of the
// ring is encrypted again. An object already under the active key is left alone, so a
// pass that stopped half-way can run again. It returns the key id the object is under now
// and whether it rewrote it.
func (s *EncryptedStorage) Reencrypt(ctx context.Context, key string) (string, bool, error) {
	active := s.ring.ActiveKeyID()
	if id, err := s.KeyID(ctx, key); err != nil || id == active {
		return id, false, err
	}
	body, info, err := s.Open(ctx, key)
	if err != nil {
		return "", false, err
	}
	defer body.Close()
	if err := s.put(ctx, key, body, info.Size, info.ContentType); err != nil {
		return "", false, err
	}
	return active, true, nil
}

// Open returns a reader of the object's plaintext and its plaintext size.
func (s *EncryptedStorage) Open(ctx context.Context, key string) (io.ReadCloser, ObjectInfo, error) {
	body, info, err := s.inner.Open(ctx, key)
	if err != nil {
		return nil, info, err
	}
	br := bufio.NewReaderSize(body, 64<<10)
	head, _ := br.Peek(32)
	if !fieldcrypt.IsEncryptedFile(head) {
		// Stored before encryption at rest; EncryptAtRest rewrites it.
		return readCloser{Reader: br, Closer: body}, info, nil
	}
	plain, file, err := s.ring.DecryptFile(br, objectAAD(key))
	if err != nil {
		_ = body.Close()
		return nil, ObjectInfo{}, fmt.Errorf("documents: decrypting %s: %w", key, err)
	}
	return readCloser{Reader: plain, Closer: body}, ObjectInfo{Size: file.Size, ContentType: info.ContentType}, nil
}

// Delete removes the object.
func (s *EncryptedStorage) Delete(ctx context.Context, key string) error {
	return s.inner.Delete(ctx, key)
}

// KeyID returns the id of the ring key that wraps the object's file key, or "" for an object
// stored in plaintext.
func (s *EncryptedStorage) KeyID(ctx context.Context, key string) (string, error) {
	body, _, err := s.inner.Open(ctx, key)
	if err != nil {
		return "", err
	}
	defer body.Close()
	id, err := fieldcrypt.FileKeyID(body)
	if errors.Is(err, fieldcrypt.ErrNotEncryptedFile) {
		return "", nil
	}
	return id, err
}

// ActiveKeyID is the ring key new objects are encrypted under.
func (s *EncryptedStorage) ActiveKeyID() string { return s.ring.ActiveKeyID() }

// objectAAD binds an encrypted object to its storage key.
func objectAAD(key string) string { return "document-object:" + key }

// readCloser reads from one reader and closes another (the stored object under a
// decrypting or buffering reader).
type readCloser struct {
	io.Reader
	io.Closer
}
