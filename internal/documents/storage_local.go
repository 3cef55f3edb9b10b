package documents

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"
)

// LocalStorage keeps objects as files under one directory. It is the default
// for development (make run); production uses S3.
//
// Each object is a single file: a short text header naming the content type,
// then the bytes. One file per object means one rename replaces data and
// metadata together, so a reader never pairs new bytes with an old type.
type LocalStorage struct {
	root *os.Root
}

var _ Storage = (*LocalStorage)(nil)

const (
	localMagic       = "portal-object/1"
	localTypeField   = "content-type: "
	localTempPrefix  = ".tmp-"
	localDirPerm     = 0o750
	localFilePerm    = 0o640
	maxLocalHeadLine = 1024
)

// NewLocalStorage opens (creating if needed) the directory that holds the
// objects. All access goes through an os.Root, so even a bug in key
// validation cannot reach files outside dir. Close releases the directory.
func NewLocalStorage(dir string) (*LocalStorage, error) {
	if dir == "" {
		return nil, errors.New("documents: local storage directory is empty")
	}
	if err := os.MkdirAll(dir, localDirPerm); err != nil {
		return nil, fmt.Errorf("documents: creating local storage directory: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("documents: opening local storage directory: %w", err)
	}
	return &LocalStorage{root: root}, nil
}

// Close releases the storage directory.
func (s *LocalStorage) Close() error {
	return s.root.Close()
}

// Put writes the object to a temporary file next to its final place, syncs it
// and renames it over the key, so an interrupted write (error, cancelled
// context, crash) never leaves a file that looks complete.
func (s *LocalStorage) Put(ctx context.Context, key string, body io.ReadSeeker, size int64, contentType string) (err error) {
	if err := checkPut(key, body, size, contentType); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	dir := path.Dir(key)
	if err := s.root.MkdirAll(dir, localDirPerm); err != nil {
		return fmt.Errorf("documents: creating directory for %s: %w", key, err)
	}
	tmpName, err := tempName(dir)
	if err != nil {
		return err
	}
	f, err := s.root.OpenFile(tmpName, os.O_WRONLY|os.O_CREATE|os.O_EXCL, localFilePerm)
	if err != nil {
		return fmt.Errorf("documents: creating temporary file for %s: %w", key, err)
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = s.root.Remove(tmpName)
		}
	}()
	if err := writeObject(ctx, f, body, size, contentType); err != nil {
		return fmt.Errorf("documents: writing %s: %w", key, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("documents: syncing %s: %w", key, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("documents: closing %s: %w", key, err)
	}
	if err := s.root.Rename(tmpName, key); err != nil {
		return fmt.Errorf("documents: renaming %s into place: %w", key, err)
	}
	// Syncing the directory makes the rename itself durable.
	return s.syncDir(dir)
}

// writeObject writes the header and exactly size bytes of body to f.
func writeObject(ctx context.Context, f *os.File, body io.Reader, size int64, contentType string) error {
	header := localMagic + "\n" + localTypeField + contentType + "\n\n"
	if _, err := io.WriteString(f, header); err != nil {
		return err
	}
	n, err := io.Copy(f, io.LimitReader(contextReader{ctx: ctx, r: body}, size))
	if err != nil {
		return err
	}
	if n != size {
		return fmt.Errorf("body ended after %d of %d bytes: %w", n, size, io.ErrUnexpectedEOF)
	}
	// A body longer than declared is as wrong as a short one.
	var probe [1]byte
	if extra, _ := body.Read(probe[:]); extra > 0 {
		return fmt.Errorf("body is longer than the declared %d bytes", size)
	}
	return nil
}

func tempName(dir string) (string, error) {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("documents: naming temporary file: %w", err)
	}
	return path.Join(dir, localTempPrefix+hex.EncodeToString(b[:])), nil
}

func (s *LocalStorage) syncDir(dir string) error {
	d, err := s.root.Open(dir)
	if err != nil {
		return fmt.Errorf("documents: opening directory %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("documents: syncing directory %s: %w", dir, err)
	}
	return nil
}

// Open returns the object's bytes after its header.
func (s *LocalStorage) Open(ctx context.Context, key string) (io.ReadCloser, ObjectInfo, error) {
	if err := ValidateKey(key); err != nil {
		return nil, ObjectInfo{}, err
	}
	if err := ctx.Err(); err != nil {
		return nil, ObjectInfo{}, err
	}
	f, err := s.root.Open(key)
	if err != nil {
		if isMissing(err) {
			return nil, ObjectInfo{}, ErrNotFound
		}
		return nil, ObjectInfo{}, fmt.Errorf("documents: opening %s: %w", key, err)
	}
	stat, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, ObjectInfo{}, fmt.Errorf("documents: inspecting %s: %w", key, err)
	}
	if !stat.Mode().IsRegular() {
		_ = f.Close()
		return nil, ObjectInfo{}, ErrNotFound
	}
	br := bufio.NewReader(f)
	contentType, headerLen, err := readHeader(br)
	if err != nil {
		_ = f.Close()
		return nil, ObjectInfo{}, fmt.Errorf("documents: reading header of %s: %w", key, err)
	}
	info := ObjectInfo{Size: stat.Size() - headerLen, ContentType: contentType}
	return localBody{r: br, f: f}, info, nil
}

// readHeader parses the object header and returns its content type and
// length. Unknown fields are skipped so that later versions can add some.
func readHeader(br *bufio.Reader) (contentType string, length int64, err error) {
	readLine := func() (string, error) {
		line, err := br.ReadSlice('\n')
		if err != nil {
			if errors.Is(err, bufio.ErrBufferFull) || len(line) > maxLocalHeadLine {
				return "", errors.New("header line too long")
			}
			return "", fmt.Errorf("truncated header: %w", err)
		}
		length += int64(len(line))
		return strings.TrimSuffix(string(line), "\n"), nil
	}
	magic, err := readLine()
	if err != nil {
		return "", 0, err
	}
	if magic != localMagic {
		return "", 0, errors.New("not an object file")
	}
	for {
		line, err := readLine()
		if err != nil {
			return "", 0, err
		}
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, localTypeField); ok {
			contentType = v
		}
	}
	if contentType == "" {
		return "", 0, errors.New("header has no content type")
	}
	return contentType, length, nil
}

// localBody reads through the buffered header reader, which may already hold
// the first bytes of the body, and closes the file.
type localBody struct {
	r *bufio.Reader
	f *os.File
}

func (b localBody) Read(p []byte) (int, error) { return b.r.Read(p) }
func (b localBody) Close() error               { return b.f.Close() }

// Delete removes the object; a missing object is not an error.
func (s *LocalStorage) Delete(ctx context.Context, key string) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	info, err := s.root.Lstat(key)
	if err != nil {
		if isMissing(err) {
			return nil
		}
		return fmt.Errorf("documents: inspecting %s: %w", key, err)
	}
	if !info.Mode().IsRegular() {
		// A directory is a key prefix, not an object.
		return nil
	}
	if err := s.root.Remove(key); err != nil && !isMissing(err) {
		return fmt.Errorf("documents: deleting %s: %w", key, err)
	}
	return nil
}

// isMissing reports whether err means nothing exists at the path, including
// a path that runs through a regular file ("a/b" when "a" is a file).
func isMissing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}
