package documents

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"runtime"
	"testing"
)

// storageContract checks the behaviour every Storage implementation promises.
// It runs its cases in order, not in parallel, because the streaming case
// measures the process's allocations.
func storageContract(t *testing.T, s Storage) {
	ctx := context.Background()

	t.Run("round trip keeps bytes, size and content type", func(t *testing.T) {
		const key = "documents/round-trip"
		body := newPatternReader(100_000 + 17)
		put(t, s, key, body, "application/pdf")
		assertObject(t, s, key, newPatternReader(100_000+17), "application/pdf")
	})

	t.Run("empty object", func(t *testing.T) {
		const key = "documents/empty"
		put(t, s, key, bytes.NewReader(nil), "application/octet-stream")
		assertObject(t, s, key, bytes.NewReader(nil), "application/octet-stream")
	})

	t.Run("body read from its current position", func(t *testing.T) {
		const key = "documents/offset"
		body := bytes.NewReader([]byte("skipped|kept"))
		if _, err := body.Seek(8, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		if err := s.Put(ctx, key, body, 4, "text/plain"); err != nil {
			t.Fatalf("Put: %v", err)
		}
		assertObject(t, s, key, bytes.NewReader([]byte("kept")), "text/plain")
	})

	t.Run("overwrite replaces bytes and content type", func(t *testing.T) {
		const key = "documents/overwrite"
		put(t, s, key, bytes.NewReader(bytes.Repeat([]byte("a"), 5000)), "image/png")
		put(t, s, key, bytes.NewReader([]byte("second")), "image/jpeg")
		assertObject(t, s, key, bytes.NewReader([]byte("second")), "image/jpeg")
	})

	t.Run("delete removes the object and is idempotent", func(t *testing.T) {
		const key = "documents/delete"
		put(t, s, key, bytes.NewReader([]byte("gone soon")), "application/pdf")
		if err := s.Delete(ctx, key); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		assertMissing(t, s, key)
		if err := s.Delete(ctx, key); err != nil {
			t.Fatalf("second Delete: %v", err)
		}
	})

	t.Run("open missing key is ErrNotFound", func(t *testing.T) {
		assertMissing(t, s, "documents/never-written")
		assertMissing(t, s, "never/written/deeper")
	})

	t.Run("20 MiB object streams without being held in memory", func(t *testing.T) {
		const key = "documents/large"
		const size = 20 << 20
		// Anything that buffered the object would allocate at least its
		// size; streaming costs a few copy buffers.
		const budget = 6 << 20
		putAlloc := allocatedDuring(t, func() {
			put(t, s, key, newPatternReader(size), "image/tiff")
		})
		if putAlloc > budget {
			t.Errorf("Put allocated %d MiB for a %d MiB object; want under %d MiB", putAlloc>>20, size>>20, budget>>20)
		}
		readAlloc := allocatedDuring(t, func() {
			assertObject(t, s, key, newPatternReader(size), "image/tiff")
		})
		if _, decrypts := s.(*EncryptedStorage); decrypts {
			// age's reader allocates each 64 KiB chunk it opens and drops it at once: the
			// garbage adds up to the object's size, but what stays in memory is a chunk.
			if live := peakLiveHeapReading(t, s, key); live > budget {
				t.Errorf("reading held %d MiB of a %d MiB object in memory; want under %d MiB", live>>20, size>>20, budget>>20)
			}
		} else if readAlloc > budget {
			t.Errorf("Open and read allocated %d MiB for a %d MiB object; want under %d MiB", readAlloc>>20, size>>20, budget>>20)
		}
		t.Logf("allocated: Put %d KiB, Open+read %d KiB", putAlloc>>10, readAlloc>>10)
	})

	t.Run("reader failing midway leaves nothing under the key", func(t *testing.T) {
		const key = "documents/interrupted"
		body := newPatternReader(3 << 20)
		body.failAt = 1 << 20
		if err := s.Put(ctx, key, body, body.size, "application/pdf"); err == nil {
			t.Fatal("Put succeeded with a failing reader")
		}
		assertMissing(t, s, key)
	})

	t.Run("reader failing midway keeps the previous object", func(t *testing.T) {
		const key = "documents/interrupted-overwrite"
		put(t, s, key, bytes.NewReader([]byte("original")), "image/png")
		body := newPatternReader(3 << 20)
		body.failAt = 2 << 20
		if err := s.Put(ctx, key, body, body.size, "application/pdf"); err == nil {
			t.Fatal("Put succeeded with a failing reader")
		}
		assertObject(t, s, key, bytes.NewReader([]byte("original")), "image/png")
	})

	t.Run("declared size that does not match the body is refused", func(t *testing.T) {
		tests := []struct {
			key      string
			declared int64
		}{
			{"documents/size-short-body", 11},
			{"documents/size-long-body", 9},
		}
		for _, tt := range tests {
			if err := s.Put(ctx, tt.key, bytes.NewReader([]byte("ten bytes!")), tt.declared, "text/plain"); err == nil {
				t.Errorf("Put accepted a 10-byte body declared as %d bytes", tt.declared)
			}
			assertMissing(t, s, tt.key)
		}
	})

	t.Run("cancelled context stores nothing", func(t *testing.T) {
		const key = "documents/cancelled"
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		if err := s.Put(cancelled, key, bytes.NewReader([]byte("x")), 1, "text/plain"); !errors.Is(err, context.Canceled) {
			t.Fatalf("Put with a cancelled context: got %v, want context.Canceled", err)
		}
		assertMissing(t, s, key)
	})

	t.Run("unsafe keys and content types are refused", func(t *testing.T) {
		keys := []string{"", "/abs", "../escape", "documents/../../escape", "a//b", "a/", ".hidden",
			"documents/.tmp-x", `a\b`, "a b", "a/./b", "ünïcode", "nul\x00byte"}
		for _, key := range keys {
			if err := s.Put(ctx, key, bytes.NewReader([]byte("x")), 1, "text/plain"); err == nil {
				t.Errorf("Put(%q) succeeded", key)
			}
			if _, _, err := s.Open(ctx, key); err == nil || errors.Is(err, ErrNotFound) {
				t.Errorf("Open(%q): got %v, want a key error", key, err)
			}
			if err := s.Delete(ctx, key); err == nil {
				t.Errorf("Delete(%q) succeeded", key)
			}
		}
		for _, contentType := range []string{"", "text/plain\r\nX-Evil: 1", "text/\x7f"} {
			if err := s.Put(ctx, "documents/bad-type", bytes.NewReader([]byte("x")), 1, contentType); err == nil {
				t.Errorf("Put with content type %q succeeded", contentType)
			}
		}
		assertMissing(t, s, "documents/bad-type")
	})
}

func put(t *testing.T, s Storage, key string, body io.ReadSeeker, contentType string) {
	t.Helper()
	size, err := remainingLength(body)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put(context.Background(), key, body, size, contentType); err != nil {
		t.Fatalf("Put(%s): %v", key, err)
	}
}

// assertObject reads the object through and compares its SHA-256, size and
// content type with want.
func assertObject(t *testing.T, s Storage, key string, want io.Reader, wantType string) {
	t.Helper()
	wantHash := sha256.New()
	wantSize, err := io.Copy(wantHash, want)
	if err != nil {
		t.Fatal(err)
	}
	rc, info, err := s.Open(context.Background(), key)
	if err != nil {
		t.Fatalf("Open(%s): %v", key, err)
	}
	defer rc.Close()
	gotHash := sha256.New()
	gotSize, err := io.Copy(gotHash, rc)
	if err != nil {
		t.Fatalf("reading %s: %v", key, err)
	}
	if info.Size != wantSize || gotSize != wantSize {
		t.Errorf("%s: info size %d, read %d bytes, want %d", key, info.Size, gotSize, wantSize)
	}
	if info.ContentType != wantType {
		t.Errorf("%s: content type %q, want %q", key, info.ContentType, wantType)
	}
	if got, want := hex.EncodeToString(gotHash.Sum(nil)), hex.EncodeToString(wantHash.Sum(nil)); got != want {
		t.Errorf("%s: SHA-256 %s, want %s", key, got, want)
	}
}

func assertMissing(t *testing.T, s Storage, key string) {
	t.Helper()
	rc, _, err := s.Open(context.Background(), key)
	if err == nil {
		rc.Close()
		t.Fatalf("Open(%s) found an object; want ErrNotFound", key)
	}
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("Open(%s): %v; want ErrNotFound", key, err)
	}
}

// allocatedDuring returns the bytes the whole process allocated while f ran.
func allocatedDuring(t *testing.T, f func()) uint64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// peakLiveHeapReading reads an object through and returns the most heap it held alive
// beyond what it held before, measured after a collection at every MiB read.
func peakLiveHeapReading(t *testing.T, s Storage, key string) uint64 {
	t.Helper()
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	base, peak := m.HeapAlloc, uint64(0)
	rc, _, err := s.Open(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	buf := make([]byte, 32<<10)
	for read := 0; ; {
		n, err := rc.Read(buf)
		read += n
		if read >= 1<<20 || err != nil {
			read = 0
			runtime.GC()
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > base && m.HeapAlloc-base > peak {
				peak = m.HeapAlloc - base
			}
		}
		if err != nil {
			break
		}
	}
	return peak
}

// patternReader is a seekable stream of size deterministic bytes that exist
// nowhere in memory, optionally failing when it reaches failAt.
type patternReader struct {
	size, pos int64
	failAt    int64 // no failure when zero
}

var errReaderBroke = errors.New("test reader broke midway")

func newPatternReader(size int64) *patternReader { return &patternReader{size: size} }

func (p *patternReader) Read(b []byte) (int, error) {
	if p.failAt > 0 && p.pos >= p.failAt {
		return 0, errReaderBroke
	}
	end := p.size
	if p.failAt > 0 && p.failAt < end {
		end = p.failAt
	}
	if p.pos >= end {
		return 0, io.EOF
	}
	n := min(int64(len(b)), end-p.pos)
	for i := range n {
		x := uint64(p.pos + i)
		b[i] = byte((x * 0x9E3779B97F4A7C15) >> 56)
	}
	p.pos += n
	return int(n), nil
}

func (p *patternReader) Seek(offset int64, whence int) (int64, error) {
	var abs int64
	switch whence {
	case io.SeekStart:
		abs = offset
	case io.SeekCurrent:
		abs = p.pos + offset
	case io.SeekEnd:
		abs = p.size + offset
	default:
		return 0, fmt.Errorf("bad whence %d", whence)
	}
	if abs < 0 {
		return 0, errors.New("negative position")
	}
	p.pos = abs
	return abs, nil
}
