package documents

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"strings"
	"time"
)

// DefaultMaxBytes is the upload size limit when Limits.MaxBytes is not set.
const DefaultMaxBytes int64 = 25 << 20

// acceptedTypesPhrase ends every wrong-type message.
const acceptedTypesPhrase = "a PDF, PNG, JPEG, TIFF or HEIC document"

// cleanupTimeout bounds the removal of a possibly stored object after a
// failed Put, which runs even when the request's context has ended.
const cleanupTimeout = 30 * time.Second

// Limits bounds what Ingest accepts.
type Limits struct {
	// MaxBytes is the largest accepted file; zero or less means
	// DefaultMaxBytes.
	MaxBytes int64
	// SpoolDir is where uploads are staged while they are checked; empty
	// means os.TempDir(). Point it at a disk, not a RAM-backed /tmp, to keep
	// memory use flat.
	SpoolDir string
}

func (l Limits) maxBytes() int64 {
	if l.MaxBytes <= 0 {
		return DefaultMaxBytes
	}
	return l.MaxBytes
}

// IngestResult describes a stored document.
type IngestResult struct {
	// Size is the document's length in bytes.
	Size int64
	// SHA256 is the lower-case hex SHA-256 of the stored bytes.
	SHA256 string
	// ContentType is the type sniffed from the bytes, one of the
	// ContentType* constants; the browser's claim is ignored.
	ContentType string
	// DisplayName is the sanitised file name, with the type's usual
	// extension added when the name had none.
	DisplayName string
}

// Reason classifies a rejected upload.
type Reason string

// Reasons an upload is rejected.
const (
	// ReasonEmpty: the file has no bytes.
	ReasonEmpty Reason = "empty"
	// ReasonTooLarge: the file is over Limits.MaxBytes.
	ReasonTooLarge Reason = "too_large"
	// ReasonUnsupportedType: the bytes are not a PDF, PNG, JPEG, TIFF or
	// HEIC/HEIF image.
	ReasonUnsupportedType Reason = "unsupported_type"
)

// RejectedError says why an upload was refused, with a message written for
// the person who picked the file. Handlers show Message beside the file.
type RejectedError struct {
	// Reason classifies the refusal for code and metrics.
	Reason Reason
	// Message is a complete sentence for the user.
	Message string
}

func (e *RejectedError) Error() string { return e.Message }

// CheckSize refuses a size that Ingest would refuse, naming both sizes. Call
// it when the size is known before reading (a multipart header), to answer
// without receiving the file.
func CheckSize(size int64, limits Limits) error {
	if size == 0 {
		return rejectEmpty()
	}
	if limit := limits.maxBytes(); size > limit {
		return &RejectedError{Reason: ReasonTooLarge, Message: fmt.Sprintf(
			"The file is %s; the limit is %s.", formatSize(size, true), formatSize(limit, false))}
	}
	return nil
}

func rejectEmpty() error {
	return &RejectedError{Reason: ReasonEmpty, Message: "The file is empty."}
}

func rejectOverLimit(limit int64) error {
	return &RejectedError{Reason: ReasonTooLarge, Message: fmt.Sprintf(
		"The file is larger than the %s limit.", formatSize(limit, false))}
}

func rejectType(kind string) error {
	msg := "This file's type is not recognised. Upload " + acceptedTypesPhrase + "."
	if kind != "" {
		msg = "This file is " + kind + ", not " + acceptedTypesPhrase + "."
	}
	return &RejectedError{Reason: ReasonUnsupportedType, Message: msg}
}

// Ingest checks an uploaded file and stores it under key. It copies r to a
// temporary file while hashing and counting, reading at most one byte past
// the limit, so memory use does not depend on the file's size. It refuses
// empty files, files over the limit and files whose bytes are not a PDF, PNG,
// JPEG, TIFF or HEIC/HEIF image, whatever declaredName says; declaredName is
// only sanitised for display.
//
// Refusals are *RejectedError; an error reading r (a dropped connection) is
// returned wrapped. On any error nothing is stored under key. key must be
// fresh: Ingest does not replace documents, and after a failed Put it deletes
// whatever the store may have kept under key.
func Ingest(ctx context.Context, store Storage, key string, r io.Reader, declaredName string, limits Limits) (IngestResult, error) {
	if err := ValidateKey(key); err != nil {
		return IngestResult{}, err
	}
	limit := limits.maxBytes()
	spool, err := newSpool(limits.SpoolDir)
	if err != nil {
		return IngestResult{}, err
	}
	defer spool.close()

	hash := sha256.New()
	head := &headBuffer{limit: sniffLength}
	size, err := io.Copy(io.MultiWriter(spool.f, hash, head), io.LimitReader(contextReader{ctx: ctx, r: r}, limit+1))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return IngestResult{}, rejectOverLimit(limit)
		}
		return IngestResult{}, fmt.Errorf("documents: receiving upload: %w", err)
	}
	if size > limit {
		return IngestResult{}, rejectOverLimit(limit)
	}
	if size == 0 {
		return IngestResult{}, rejectEmpty()
	}
	kind := sniff(head.b)
	if !kind.accepted() {
		return IngestResult{}, rejectType(kind.kind)
	}
	if _, err := spool.f.Seek(0, io.SeekStart); err != nil {
		return IngestResult{}, fmt.Errorf("documents: rewinding spooled upload: %w", err)
	}
	if err := store.Put(ctx, key, spool.f, size, kind.contentType); err != nil {
		return IngestResult{}, removeAfterFailedPut(ctx, store, key, err)
	}
	return IngestResult{
		Size:        size,
		SHA256:      hex.EncodeToString(hash.Sum(nil)),
		ContentType: kind.contentType,
		DisplayName: displayName(declaredName, kind.extension),
	}, nil
}

// removeAfterFailedPut deletes the key in case the store kept the object
// although Put reported failure (a response lost after S3 stored it), so no
// unreferenced copy of a personal document lingers.
func removeAfterFailedPut(ctx context.Context, store Storage, key string, putErr error) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	if err := store.Delete(ctx, key); err != nil {
		return errors.Join(putErr, fmt.Errorf("documents: removing %s after the failed upload: %w", key, err))
	}
	return putErr
}

// displayName sanitises the declared name and adds the sniffed type's
// extension when the name has none, so a download opens in the right
// application.
func displayName(declared, extension string) string {
	name := SanitizeDisplayName(declared)
	if dot := strings.LastIndexByte(name, '.'); dot > 0 && dot < len(name)-1 {
		return name
	}
	return shorten(name+extension, MaxDisplayNameLength)
}

// spool is the temporary file an upload is staged in.
type spool struct {
	f        *os.File
	unlinked bool
}

// newSpool creates the staging file and unlinks it at once where the system
// allows, so a crash cannot leave a merchant's document behind in the spool
// directory.
func newSpool(dir string) (*spool, error) {
	f, err := os.CreateTemp(dir, "portal-upload-*")
	if err != nil {
		return nil, fmt.Errorf("documents: creating spool file: %w", err)
	}
	s := &spool{f: f}
	if err := os.Remove(f.Name()); err == nil {
		s.unlinked = true
	}
	return s, nil
}

func (s *spool) close() {
	_ = s.f.Close()
	if !s.unlinked {
		_ = os.Remove(s.f.Name())
	}
}

// headBuffer keeps the first limit bytes written to it, for sniffing.
type headBuffer struct {
	b     []byte
	limit int
}

func (h *headBuffer) Write(p []byte) (int, error) {
	if room := h.limit - len(h.b); room > 0 {
		h.b = append(h.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// formatSize writes n in bytes, KiB or MiB with at most one decimal. Sizes
// over a limit round up and limits round down, so an oversized file never
// reads as equal to the limit.
func formatSize(n int64, roundUp bool) string {
	round := math.Floor
	if roundUp {
		round = math.Ceil
	}
	unit, div := "", 1.0
	switch {
	case n >= 1<<20:
		unit, div = "MiB", 1<<20
	case n >= 1<<10:
		unit, div = "KiB", 1<<10
	default:
		if n == 1 {
			return "1 byte"
		}
		return fmt.Sprintf("%d bytes", n)
	}
	v := round(float64(n)/div*10) / 10
	s := strings.TrimSuffix(fmt.Sprintf("%.1f", v), ".0")
	return s + " " + unit
}
