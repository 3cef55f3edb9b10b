package accounts_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	sandbox "github.com/payportal/portal/internal/sandbox/accounts"
	upstream "github.com/payportal/portal/internal/upstream/accounts"
)

// started returns a client and a fresh application on a new sandbox.
func started(t *testing.T, mutate func(*sandbox.Options)) (*env, *upstream.Client, string) {
	t.Helper()
	e := newEnv(t, mutate, nil)
	c := e.client(t, nil)
	id, err := c.StartApplication(context.Background(), upstream.StartRequest{ExternalApplicationID: newExternalID(), PricingCode: pricingCode})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	return e, c, id
}

func pdfMeta(content []byte) upstream.FileMetadata {
	return upstream.FileMetadata{FileType: upstream.FileTypeBankStatement, Name: "statement.pdf", ContentLength: int64(len(content)), ContentType: "application/pdf"}
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func TestUploadRoundTrip(t *testing.T) {
	e, c, id := started(t, nil)
	ctx := context.Background()
	content := []byte("%PDF-1.7 a small statement")
	up, err := c.CreateFile(ctx, id, pdfMeta(content))
	if err != nil {
		t.Fatalf("create file: %v", err)
	}
	if want := t0.Add(120 * time.Second); !up.ExpiresAt.Equal(want) {
		t.Errorf("ExpiresAt = %v, want %v", up.ExpiresAt, want)
	}
	if err := c.UploadToPresignedURL(ctx, up.PresignedURL, bytes.NewReader(content), int64(len(content)), "application/pdf"); err != nil {
		t.Fatalf("upload: %v", err)
	}
	got, ok := e.sb.FileSHA256(id, up.FileID)
	if !ok || got != sha(content) {
		t.Errorf("stored sha256 = %q (%v), want %s", got, ok, sha(content))
	}
}

func TestUploadAfterExpiryNeedsFreshURL(t *testing.T) {
	e, c, id := started(t, nil)
	ctx := context.Background()
	content := []byte("%PDF-1.7 late")
	up, err := c.CreateFile(ctx, id, pdfMeta(content))
	if err != nil {
		t.Fatalf("create file: %v", err)
	}
	e.clock.Advance(119 * time.Second)
	fresh, err := c.GetFileURL(ctx, id, up.FileID) // issued at 119 s, valid until 239 s
	if err != nil {
		t.Fatalf("get file: %v", err)
	}
	e.clock.Advance(time.Second) // 120 s after the metadata POST

	err = c.UploadToPresignedURL(ctx, up.PresignedURL, bytes.NewReader(content), int64(len(content)), "application/pdf")
	if !errors.Is(err, upstream.ErrPresignedURLExpired) {
		t.Fatalf("upload at 120 s: err = %v, want ErrPresignedURLExpired", err)
	}
	if upstream.IsPermanent(err) || upstream.IsTemporary(err) {
		t.Errorf("expired URL should be neither permanent nor temporary")
	}
	if err := c.UploadToPresignedURL(ctx, fresh, bytes.NewReader(content), int64(len(content)), "application/pdf"); err != nil {
		t.Fatalf("upload with fresh URL: %v", err)
	}
	if _, ok := e.sb.FileSHA256(id, up.FileID); !ok {
		t.Error("content not stored")
	}
}

func TestUploadRefusals(t *testing.T) {
	content := []byte("%PDF-1.7 twelve")
	tests := []struct {
		name   string
		upload func(c *upstream.Client, u string) error
		status int
		code   string
	}{
		{"size differs from metadata", func(c *upstream.Client, u string) error {
			longer := append(content, 'x')
			return c.UploadToPresignedURL(context.Background(), u, bytes.NewReader(longer), int64(len(longer)), "application/pdf")
		}, 403, "SignatureDoesNotMatch"},
		{"content type differs from metadata", func(c *upstream.Client, u string) error {
			return c.UploadToPresignedURL(context.Background(), u, bytes.NewReader(content), int64(len(content)), "image/png")
		}, 403, "SignatureDoesNotMatch"},
		{"tampered expiry", func(c *upstream.Client, u string) error {
			parsed, _ := url.Parse(u)
			q := parsed.Query()
			q.Set("X-Amz-Expires", "604800")
			parsed.RawQuery = q.Encode()
			return c.UploadToPresignedURL(context.Background(), parsed.String(), bytes.NewReader(content), int64(len(content)), "application/pdf")
		}, 403, "SignatureDoesNotMatch"},
		{"signature removed", func(c *upstream.Client, u string) error {
			parsed, _ := url.Parse(u)
			parsed.RawQuery = ""
			return c.UploadToPresignedURL(context.Background(), parsed.String(), bytes.NewReader(content), int64(len(content)), "application/pdf")
		}, 403, "AccessDenied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, c, id := started(t, nil)
			up, err := c.CreateFile(context.Background(), id, pdfMeta(content))
			if err != nil {
				t.Fatalf("create file: %v", err)
			}
			err = tt.upload(c, up.PresignedURL)
			var ue *upstream.Error
			if !errors.As(err, &ue) || ue.StatusCode != tt.status || ue.Code != tt.code {
				t.Fatalf("err = %v, want %d %s", err, tt.status, tt.code)
			}
			if errors.Is(err, upstream.ErrPresignedURLExpired) {
				t.Error("refusal must not read as an expired URL")
			}
		})
	}
}

func TestUploadWithoutContentLengthIs411(t *testing.T) {
	_, c, id := started(t, nil)
	content := []byte("%PDF-1.7 chunked")
	up, err := c.CreateFile(context.Background(), id, pdfMeta(content))
	if err != nil {
		t.Fatalf("create file: %v", err)
	}
	// A reader of unknown length makes net/http send chunked, without
	// Content-Length, as a careless client would.
	req, _ := http.NewRequest(http.MethodPut, up.PresignedURL, io.MultiReader(bytes.NewReader(content)))
	req.Header.Set("Content-Type", "application/pdf")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("put: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusLengthRequired || !strings.Contains(string(body), "MissingContentLength") {
		t.Errorf("got %d %s, want 411 MissingContentLength", resp.StatusCode, body)
	}
}

func TestFileAnswerShapes(t *testing.T) {
	content := []byte("%PDF-1.7 shapes")
	tests := []struct {
		name   string
		compat sandbox.Compat
	}{
		{"url and expAt in milliseconds", sandbox.Compat{}},
		{"url and expAt in seconds", sandbox.Compat{ExpAtSeconds: true}},
		{"fileId only, URL from GET file", sandbox.Compat{OmitPresignedURL: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, c, id := started(t, func(o *sandbox.Options) { o.Compat = tt.compat })
			up, err := c.CreateFile(context.Background(), id, pdfMeta(content))
			if err != nil {
				t.Fatalf("create file: %v", err)
			}
			if up.FileID == "" || up.PresignedURL == "" {
				t.Fatalf("upload = %+v, want id and URL", up)
			}
			if want := t0.Add(120 * time.Second); !up.ExpiresAt.Equal(want) {
				t.Errorf("ExpiresAt = %v, want %v", up.ExpiresAt, want)
			}
			if err := c.UploadToPresignedURL(context.Background(), up.PresignedURL, bytes.NewReader(content), int64(len(content)), "application/pdf"); err != nil {
				t.Fatalf("upload: %v", err)
			}
			if _, ok := e.sb.FileSHA256(id, up.FileID); !ok {
				t.Error("content not stored")
			}
		})
	}
}

// patternReader yields n bytes of a repeating pattern without holding them,
// and can seek like a file.
type patternReader struct{ off, n int64 }

func (p *patternReader) Read(b []byte) (int, error) {
	if p.off >= p.n {
		return 0, io.EOF
	}
	k := int(min(int64(len(b)), p.n-p.off))
	for i := range k {
		b[i] = byte((p.off + int64(i)) % 251)
	}
	p.off += int64(k)
	return k, nil
}

func (p *patternReader) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
		p.off = off
	case io.SeekCurrent:
		p.off += off
	case io.SeekEnd:
		p.off = p.n + off
	}
	return p.off, nil
}

func TestLargeUploadStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("large upload")
	}
	const size = 64 << 20
	e, c, id := started(t, nil)
	ctx := context.Background()
	up, err := c.CreateFile(ctx, id, upstream.FileMetadata{FileType: upstream.FileTypeOther, Name: "big.bin", ContentLength: size, ContentType: "application/octet-stream"})
	if err != nil {
		t.Fatalf("create file: %v", err)
	}
	h := sha256.New()
	if _, err := io.Copy(h, &patternReader{n: size}); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := c.UploadToPresignedURL(ctx, up.PresignedURL, &patternReader{n: size}, size, "application/octet-stream"); err != nil {
		t.Fatalf("upload: %v", err)
	}
	runtime.ReadMemStats(&after)
	// Client and store run in this process: together they may allocate
	// buffers, never the body.
	if grown := after.TotalAlloc - before.TotalAlloc; grown > size/4 {
		t.Errorf("upload of %d MiB allocated %d MiB", size>>20, grown>>20)
	}
	if got, _ := e.sb.FileSHA256(id, up.FileID); got != hex.EncodeToString(h.Sum(nil)) {
		t.Errorf("stored content differs")
	}
}
