package documents

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ErrNotFound is returned by Storage.Open when no object exists under the key.
var ErrNotFound = errors.New("documents: object not found")

// Storage keeps document bytes under keys that we generate (for example
// "documents/<uuid>"). A key never comes from a user's file name.
//
// Every implementation is atomic per key: a Put that fails, whatever the
// reason, leaves the previous object (or no object) readable under the key,
// never a partial one.
type Storage interface {
	// Put stores size bytes read from body under key, replacing any object
	// already there. The body must hold exactly size bytes from its current
	// position: a seekable body lets both implementations stream without
	// holding the file in memory (S3 over plain HTTP signs the payload hash,
	// which needs a second pass). Callers with a plain stream spool it to a
	// temporary file first, as Ingest does.
	Put(ctx context.Context, key string, body io.ReadSeeker, size int64, contentType string) error
	// Open returns the object's bytes and metadata, or ErrNotFound. The
	// caller must close the reader; ctx must stay alive while reading,
	// because S3 streams the body over the request's connection.
	Open(ctx context.Context, key string) (io.ReadCloser, ObjectInfo, error)
	// Delete removes the object. Deleting a key that holds nothing succeeds,
	// so that a retried clean-up job does not fail.
	Delete(ctx context.Context, key string) error
}

// ObjectInfo describes a stored object.
type ObjectInfo struct {
	// Size is the object's length in bytes.
	Size int64
	// ContentType is the media type given to Put.
	ContentType string
}

// maxKeyLength leaves room under S3's 1,024-byte key limit and common file
// system path limits.
const maxKeyLength = 512

// ValidateKey reports whether key is safe to use as a storage key: non-empty,
// relative, made of "/"-separated segments of ASCII letters, digits, '.', '-'
// and '_', with no empty, "." or ".." segment and no segment starting with a
// dot (the local store uses dot names for its temporary files).
func ValidateKey(key string) error {
	if key == "" {
		return fmt.Errorf("documents: empty storage key")
	}
	if len(key) > maxKeyLength {
		return fmt.Errorf("documents: storage key longer than %d bytes", maxKeyLength)
	}
	for _, segment := range strings.Split(key, "/") {
		if segment == "" {
			return fmt.Errorf("documents: storage key %q has an empty segment or a leading or trailing slash", key)
		}
		if segment[0] == '.' {
			return fmt.Errorf("documents: storage key %q has a segment starting with a dot", key)
		}
		for i := 0; i < len(segment); i++ {
			if !isKeyByte(segment[i]) {
				return fmt.Errorf("documents: storage key %q contains a disallowed character", key)
			}
		}
	}
	return nil
}

func isKeyByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '.' || c == '-' || c == '_'
}

// maxContentTypeLength bounds what we write into object headers.
const maxContentTypeLength = 255

// validateContentType refuses values that could not travel safely in an HTTP
// header or in the local store's object header.
func validateContentType(contentType string) error {
	if contentType == "" {
		return fmt.Errorf("documents: empty content type")
	}
	if len(contentType) > maxContentTypeLength {
		return fmt.Errorf("documents: content type longer than %d bytes", maxContentTypeLength)
	}
	for i := 0; i < len(contentType); i++ {
		if c := contentType[i]; c < 0x20 || c > 0x7e {
			return fmt.Errorf("documents: content type %q contains a non-printable character", contentType)
		}
	}
	return nil
}

// checkPut validates Put's arguments shared by every implementation,
// including that body really holds size bytes from its current position, so
// that a wrong size fails before anything is written.
func checkPut(key string, body io.ReadSeeker, size int64, contentType string) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	if err := validateContentType(contentType); err != nil {
		return err
	}
	if size < 0 {
		return fmt.Errorf("documents: negative size %d", size)
	}
	remaining, err := remainingLength(body)
	if err != nil {
		return err
	}
	if remaining != size {
		return fmt.Errorf("documents: body holds %d bytes, not the declared %d", remaining, size)
	}
	return nil
}

// remainingLength returns how many bytes lie between body's current position
// and its end, leaving the position unchanged.
func remainingLength(body io.ReadSeeker) (int64, error) {
	start, err := body.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, fmt.Errorf("documents: measuring body: %w", err)
	}
	end, err := body.Seek(0, io.SeekEnd)
	if err != nil {
		return 0, fmt.Errorf("documents: measuring body: %w", err)
	}
	if _, err := body.Seek(start, io.SeekStart); err != nil {
		return 0, fmt.Errorf("documents: rewinding body: %w", err)
	}
	return end - start, nil
}

// contextReader stops a copy as soon as the context ends, so that a cancelled
// request does not keep writing a large file.
type contextReader struct {
	ctx context.Context
	r   io.Reader
}

func (c contextReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
