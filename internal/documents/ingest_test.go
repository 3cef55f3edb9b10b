package documents

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Tiny files that start like real ones: the checks only read the header.
var (
	samplePDF      = []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n")
	samplePNG      = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR"), make([]byte, 17)...)
	sampleJPEG     = append([]byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"), 0xff, 0xd9)
	sampleTIFFLE   = []byte("II*\x00\x08\x00\x00\x00\x00\x00")
	sampleTIFFBE   = []byte("MM\x00*\x00\x00\x00\x08\x00\x00")
	sampleHEIC     = ftyp("heic", "mif1", "heic")
	sampleHEIX     = ftyp("heix", "mif1", "heix")
	sampleHEIFHEIC = ftyp("mif1", "mif1", "heic", "miaf")
	sampleHEIF     = ftyp("mif1", "mif1", "miaf")
	sampleAVIF     = ftyp("avif", "avif", "mif1", "miaf")
	sampleAVIFMif1 = ftyp("mif1", "avif", "miaf")
	sampleMP4      = ftyp("isom", "isom", "iso2", "mp41")
	sampleMOV      = ftyp("qt  ", "qt  ")
	sampleHEVC     = ftyp("hevc", "msf1", "hevc")
)

// ftyp builds an ISO-BMFF ftyp box followed by an empty meta box.
func ftyp(major string, compatible ...string) []byte {
	size := 16 + 4*len(compatible)
	b := []byte{0, 0, 0, byte(size)}
	b = append(b, "ftyp"+major+"\x00\x00\x00\x00"+strings.Join(compatible, "")...)
	return append(b, "\x00\x00\x00\x08meta"...)
}

// zipWithEntry builds the start of a ZIP archive whose first entry is name.
func zipWithEntry(name string) []byte {
	b := []byte("PK\x03\x04")
	b = append(b, make([]byte, 22)...)
	b = append(b, byte(len(name)), 0, 0, 0)
	return append(b, name...)
}

func TestIngestAcceptsEachDocumentType(t *testing.T) {
	tests := []struct {
		name, declared string
		body           []byte
		wantType       string
		wantName       string
	}{
		{"PDF", "statement.pdf", samplePDF, ContentTypePDF, "statement.pdf"},
		{"PNG", "cheque.png", samplePNG, ContentTypePNG, "cheque.png"},
		{"JPEG", "licence.jpeg", sampleJPEG, ContentTypeJPEG, "licence.jpeg"},
		{"TIFF little-endian", "scan.tif", sampleTIFFLE, ContentTypeTIFF, "scan.tif"},
		{"TIFF big-endian", "scan.tiff", sampleTIFFBE, ContentTypeTIFF, "scan.tiff"},
		{"HEIC", "IMG_0001.HEIC", sampleHEIC, ContentTypeHEIC, "IMG_0001.HEIC"},
		{"HEIC heix", "IMG_0002.heic", sampleHEIX, ContentTypeHEIC, "IMG_0002.heic"},
		{"HEIF container with HEIC brand", "photo.heif", sampleHEIFHEIC, ContentTypeHEIC, "photo.heif"},
		{"HEIF", "photo.heif", sampleHEIF, ContentTypeHEIF, "photo.heif"},
		{"misnamed but allowed", "photo.pdf", samplePNG, ContentTypePNG, "photo.pdf"},
		{"no extension gets one", "IMG_0003", sampleHEIC, ContentTypeHEIC, "IMG_0003.heic"},
		{"no name", "", samplePDF, ContentTypePDF, "document.pdf"},
		{"hostile name", "../../etc/passwd", sampleJPEG, ContentTypeJPEG, "passwd.jpg"},
		{"bidi name", "invoice\u202Efdp.exe", samplePDF, ContentTypePDF, "invoicefdp.exe"},
		{"NUL name", "bank\x00letter.pdf", samplePDF, ContentTypePDF, "bankletter.pdf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := newTestLocalStorage(t, t.TempDir())
			const key = "documents/accepted"
			got, err := Ingest(context.Background(), store, key, bytes.NewReader(tt.body), tt.declared, Limits{})
			if err != nil {
				t.Fatalf("Ingest: %v", err)
			}
			sum := sha256.Sum256(tt.body)
			want := IngestResult{Size: int64(len(tt.body)), SHA256: hex.EncodeToString(sum[:]), ContentType: tt.wantType, DisplayName: tt.wantName}
			if got != want {
				t.Errorf("Ingest = %+v, want %+v", got, want)
			}
			assertObject(t, store, key, bytes.NewReader(tt.body), tt.wantType)
		})
	}
}

func TestIngestRefusesWrongTypes(t *testing.T) {
	const unknown = "This file's type is not recognised. Upload a PDF, PNG, JPEG, TIFF or HEIC document."
	kind := func(k string) string { return "This file is " + k + ", not a PDF, PNG, JPEG, TIFF or HEIC document." }
	tests := []struct {
		name, declared string
		body           []byte
		wantMessage    string
	}{
		{"HTML named .pdf", "statement.pdf", []byte("<!DOCTYPE html><html><body>pay here</body></html>"), kind("a web page (HTML)")},
		{"HTML with BOM and spaces", "statement.pdf", []byte("\xef\xbb\xbf\n  <script>alert(1)</script>"), kind("a web page (HTML)")},
		{"HTML comment", "x.png", []byte("<!-- hi --><p>x</p>"), kind("a web page (HTML)")},
		{"ZIP named .pdf", "statement.pdf", zipWithEntry("statement.pdf"), kind("a ZIP archive")},
		{"empty ZIP", "a.pdf", []byte("PK\x05\x06" + strings.Repeat("\x00", 18)), kind("a ZIP archive")},
		{"Word document", "letter.pdf", zipWithEntry("word/document.xml"), kind("a Word document (.docx)")},
		{"Excel spreadsheet", "statement.pdf", zipWithEntry("xl/workbook.xml"), kind("an Excel spreadsheet (.xlsx)")},
		{"old Office document", "letter.pdf", []byte("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1\x00\x00"), kind("an older Microsoft Office document (.doc, .xls or .ppt)")},
		{"Windows program named .jpg", "photo.jpg", append([]byte("MZ\x90\x00\x03"), make([]byte, 60)...), kind("a Windows program")},
		{"ELF program", "scan.tiff", []byte("\x7fELF\x02\x01\x01"), kind("a program")},
		{"shell script", "id.png", []byte("#!/bin/sh\nrm -rf /\n"), kind("a script")},
		{"SVG named .png", "logo.png", []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`), kind("an SVG image")},
		{"XML", "data.pdf", []byte(`<?xml version="1.0"?><root/>`), kind("an XML file")},
		{"GIF", "id.jpg", []byte("GIF89a\x01\x00\x01\x00"), kind("a GIF image")},
		{"WebP", "id.jpg", []byte("RIFF\x00\x00\x00\x00WEBPVP8 "), kind("a WebP image")},
		{"AVIF", "id.heic", sampleAVIF, kind("an AVIF image")},
		{"AVIF in mif1 container", "id.heic", sampleAVIFMif1, kind("an AVIF image")},
		{"HEIF sequence", "burst.heic", sampleHEVC, kind("a HEIF image sequence (burst or animation)")},
		{"MP4 video", "id.heic", sampleMP4, kind("a video or audio file")},
		{"QuickTime video", "id.heic", sampleMOV, kind("a QuickTime video")},
		{"gzip", "statement.pdf", []byte("\x1f\x8b\x08\x00"), kind("a compressed archive")},
		{"RTF", "letter.pdf", []byte(`{\rtf1\ansi hello}`), kind("a rich-text (RTF) document")},
		{"plain text", "statement.pdf", []byte("Account 12345678\nBalance 100.00\n"), kind("a text file")},
		{"PDF magic not at start", "statement.pdf", []byte("junk%PDF-1.7"), kind("a text file")},
		{"BigTIFF", "scan.tiff", []byte("II+\x00\x08\x00\x00\x00"), kind("a BigTIFF image")},
		{"unknown binary", "statement.pdf", []byte{0x00, 0x01, 0x02, 0x03, 0x9a, 0xff}, unknown},
		{"truncated PNG signature", "x.png", []byte("\x89PNG\r\n"), unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := newTestLocalStorage(t, t.TempDir())
			const key = "documents/refused"
			_, err := Ingest(context.Background(), store, key, bytes.NewReader(tt.body), tt.declared, Limits{})
			assertRejected(t, err, ReasonUnsupportedType, tt.wantMessage)
			assertMissing(t, store, key)
		})
	}
}

func TestIngestSizeChecks(t *testing.T) {
	const limit = 4 << 10
	pdfOfSize := func(n int) []byte {
		return append(append([]byte{}, samplePDF...), bytes.Repeat([]byte{' '}, n-len(samplePDF))...)
	}
	tests := []struct {
		name        string
		body        []byte
		limits      Limits
		wantReason  Reason
		wantMessage string
	}{
		{"empty", nil, Limits{}, ReasonEmpty, "The file is empty."},
		{"one byte over", pdfOfSize(limit + 1), Limits{MaxBytes: limit}, ReasonTooLarge, "The file is larger than the 4 KiB limit."},
		{"far over", pdfOfSize(3 * limit), Limits{MaxBytes: limit}, ReasonTooLarge, "The file is larger than the 4 KiB limit."},
		{"exactly the limit", pdfOfSize(limit), Limits{MaxBytes: limit}, "", ""},
		{"default limit", pdfOfSize(1 << 20), Limits{}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := newTestLocalStorage(t, t.TempDir())
			const key = "documents/sized"
			res, err := Ingest(context.Background(), store, key, bytes.NewReader(tt.body), "a.pdf", tt.limits)
			if tt.wantReason == "" {
				if err != nil {
					t.Fatalf("Ingest: %v", err)
				}
				if res.Size != int64(len(tt.body)) {
					t.Errorf("Size = %d, want %d", res.Size, len(tt.body))
				}
				return
			}
			assertRejected(t, err, tt.wantReason, tt.wantMessage)
			assertMissing(t, store, key)
		})
	}
}

// An endless upload must be cut off just past the limit, not read to the end.
func TestIngestStopsReadingPastTheLimit(t *testing.T) {
	const limit = 64 << 10
	src := &countingReader{r: io.MultiReader(bytes.NewReader(samplePDF), endless{})}
	_, err := Ingest(context.Background(), newTestLocalStorage(t, t.TempDir()), "documents/endless", src, "a.pdf", Limits{MaxBytes: limit})
	assertRejected(t, err, ReasonTooLarge, "The file is larger than the 64 KiB limit.")
	if src.n > limit+1 {
		t.Errorf("read %d bytes from an endless upload; want at most %d", src.n, limit+1)
	}
}

func TestIngestMapsBodyLimitToTooLarge(t *testing.T) {
	body := io.MultiReader(bytes.NewReader(samplePDF), failingReader{err: &http.MaxBytesError{Limit: 100}})
	_, err := Ingest(context.Background(), newTestLocalStorage(t, t.TempDir()), "documents/x", body, "a.pdf", Limits{MaxBytes: 1 << 20})
	assertRejected(t, err, ReasonTooLarge, "The file is larger than the 1 MiB limit.")
}

func TestIngestInterruptedUploadStoresNothing(t *testing.T) {
	store := newTestLocalStorage(t, t.TempDir())
	const key = "documents/interrupted"
	body := io.MultiReader(bytes.NewReader(samplePDF), bytes.NewReader(make([]byte, 100_000)), failingReader{err: io.ErrUnexpectedEOF})
	_, err := Ingest(context.Background(), store, key, body, "statement.pdf", Limits{})
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("Ingest: got %v, want the reader's error", err)
	}
	var rejected *RejectedError
	if errors.As(err, &rejected) {
		t.Fatalf("an interrupted upload is not the user's file being refused: %v", err)
	}
	assertMissing(t, store, key)
}

func TestIngestCancelledContextStoresNothing(t *testing.T) {
	store := newTestLocalStorage(t, t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Ingest(ctx, store, "documents/cancelled", bytes.NewReader(samplePDF), "a.pdf", Limits{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Ingest: got %v, want context.Canceled", err)
	}
	assertMissing(t, store, "documents/cancelled")
}

// A Put can fail after the store kept the object (S3 stored it, the response
// was lost). Ingest must then remove it.
func TestIngestRemovesObjectAfterFailedPut(t *testing.T) {
	store := &lyingStore{LocalStorage: newTestLocalStorage(t, t.TempDir())}
	const key = "documents/ambiguous"
	_, err := Ingest(context.Background(), store, key, bytes.NewReader(samplePDF), "a.pdf", Limits{})
	if !errors.Is(err, errResponseLost) {
		t.Fatalf("Ingest: got %v, want the Put error", err)
	}
	assertMissing(t, store, key)
}

func TestIngestRefusesUnsafeKey(t *testing.T) {
	_, err := Ingest(context.Background(), newTestLocalStorage(t, t.TempDir()), "../x", bytes.NewReader(samplePDF), "a.pdf", Limits{})
	var rejected *RejectedError
	if err == nil || errors.As(err, &rejected) {
		t.Fatalf("Ingest with key ../x: got %v, want a key error", err)
	}
}

func TestIngestStreamsLargeFiles(t *testing.T) {
	store := newTestLocalStorage(t, t.TempDir())
	const size = 20 << 20
	body := io.MultiReader(bytes.NewReader(samplePDF), io.LimitReader(newPatternReader(size), size-int64(len(samplePDF))))
	var res IngestResult
	alloc := allocatedDuring(t, func() {
		var err error
		if res, err = Ingest(context.Background(), store, "documents/large", body, "big.pdf", Limits{}); err != nil {
			t.Fatalf("Ingest: %v", err)
		}
	})
	if res.Size != size {
		t.Errorf("Size = %d, want %d", res.Size, size)
	}
	if alloc > 6<<20 {
		t.Errorf("Ingest allocated %d MiB for a %d MiB file", alloc>>20, size>>20)
	}
}

func TestCheckSize(t *testing.T) {
	tests := []struct {
		size        int64
		limits      Limits
		wantMessage string
	}{
		{0, Limits{}, "The file is empty."},
		{1, Limits{}, ""},
		{DefaultMaxBytes, Limits{}, ""},
		{DefaultMaxBytes + 1, Limits{}, "The file is 25.1 MiB; the limit is 25 MiB."},
		{31*(1<<20) + 200*(1<<10), Limits{}, "The file is 31.2 MiB; the limit is 25 MiB."},
		{2000, Limits{MaxBytes: 1000}, "The file is 2 KiB; the limit is 1000 bytes."},
		{10_500_000, Limits{MaxBytes: 10_000_000}, "The file is 10.1 MiB; the limit is 9.5 MiB."},
	}
	for _, tt := range tests {
		err := CheckSize(tt.size, tt.limits)
		if tt.wantMessage == "" {
			if err != nil {
				t.Errorf("CheckSize(%d): %v", tt.size, err)
			}
			continue
		}
		var rejected *RejectedError
		if !errors.As(err, &rejected) || rejected.Message != tt.wantMessage {
			t.Errorf("CheckSize(%d) = %v, want %q", tt.size, err, tt.wantMessage)
		}
	}
}

func assertRejected(t *testing.T, err error, reason Reason, message string) {
	t.Helper()
	var rejected *RejectedError
	if !errors.As(err, &rejected) {
		t.Fatalf("got %v, want a *RejectedError", err)
	}
	if rejected.Reason != reason || rejected.Message != message {
		t.Errorf("rejected with %s %q, want %s %q", rejected.Reason, rejected.Message, reason, message)
	}
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

type endless struct{}

func (endless) Read(p []byte) (int, error) { return len(p), nil }

type failingReader struct{ err error }

func (f failingReader) Read([]byte) (int, error) { return 0, f.err }

var errResponseLost = errors.New("response lost after the object was stored")

// lyingStore stores the object, then reports failure.
type lyingStore struct{ *LocalStorage }

func (s *lyingStore) Put(ctx context.Context, key string, body io.ReadSeeker, size int64, contentType string) error {
	if err := s.LocalStorage.Put(ctx, key, body, size, contentType); err != nil {
		return err
	}
	return errResponseLost
}
