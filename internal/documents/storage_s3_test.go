package documents

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/payportal/portal/internal/testutil/s3server"
)

func TestS3StorageContract(t *testing.T) {
	srv := s3server.Start(t)
	s := newTestS3Storage(t, srv, srv.Endpoint, "")
	if err := s.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	storageContract(t, s)
}

func newTestS3Storage(t *testing.T, srv s3server.Server, endpoint, sse string) *S3Storage {
	t.Helper()
	s, err := NewS3Storage(context.Background(), S3Config{
		Endpoint:             endpoint,
		Region:               srv.Region,
		Bucket:               srv.Bucket,
		AccessKeyID:          srv.AccessKeyID,
		SecretAccessKey:      srv.SecretAccessKey,
		UsePathStyle:         true,
		ServerSideEncryption: sse,
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// versitygw accepts the server-side encryption header but does not report
// encryption back, so this test checks what we can: the header our PutObject
// sends, through a recording proxy, and that the server accepts it.
func TestS3PutRequestsServerSideEncryption(t *testing.T) {
	srv := s3server.Start(t)
	target, err := url.Parse(srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu      sync.Mutex
		headers = map[string]http.Header{}
	)
	// The proxy keeps the client's Host header, so SigV4 signatures still
	// match on the server.
	proxy := httputil.NewSingleHostReverseProxy(target)
	recorder := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut {
			mu.Lock()
			headers[r.URL.Path] = r.Header.Clone()
			mu.Unlock()
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(recorder.Close)

	tests := []struct {
		sse, wantHeader string
	}{
		{sse: "", wantHeader: "AES256"},
		{sse: SSEAES256, wantHeader: "AES256"},
		{sse: SSENone, wantHeader: ""},
	}
	for _, tt := range tests {
		t.Run("sse="+tt.sse, func(t *testing.T) {
			s := newTestS3Storage(t, srv, recorder.URL, tt.sse)
			key := "documents/sse-" + strings.NewReplacer(":", "-").Replace(tt.sse)
			put(t, s, key, bytes.NewReader([]byte("%PDF-1.7 secret")), "application/pdf")
			mu.Lock()
			got := headers["/"+srv.Bucket+"/"+key].Get("X-Amz-Server-Side-Encryption")
			mu.Unlock()
			if got != tt.wantHeader {
				t.Errorf("x-amz-server-side-encryption = %q, want %q", got, tt.wantHeader)
			}
		})
	}
}

// The contract's failing reader breaks while the SDK checksums the body,
// before any byte is sent. This test lets every pre-send pass succeed and
// breaks the pass that feeds the connection, so versitygw receives a
// truncated request and must not store it.
func TestS3PutInterruptedOnTheWire(t *testing.T) {
	srv := s3server.Start(t)
	s := newTestS3Storage(t, srv, srv.Endpoint, "")
	const size = 3 << 20

	probe := &passCountingReader{patternReader: newPatternReader(size)}
	put(t, s, "documents/probe", probe, "application/pdf")
	if probe.passes < 1 {
		t.Fatalf("the SDK read the body %d times", probe.passes)
	}

	const key = "documents/wire-interrupted"
	body := &passCountingReader{patternReader: newPatternReader(size), failFromPass: probe.passes, failAt: size / 2}
	if err := s.Put(context.Background(), key, body, size, "application/pdf"); err == nil {
		t.Fatal("Put succeeded with a body that broke on the wire")
	}
	t.Logf("body read %d times before the failing pass %d", body.passes, probe.passes)
	assertMissing(t, s, key)
}

// passCountingReader counts completed or broken passes over the body; from
// pass failFromPass on (1-based) it fails at offset failAt.
type passCountingReader struct {
	*patternReader
	passes       int
	failFromPass int
	failAt       int64
	inPass       bool
}

func (p *passCountingReader) Read(b []byte) (int, error) {
	if !p.inPass {
		p.inPass = true
		p.passes++
	}
	if p.failFromPass > 0 && p.passes >= p.failFromPass {
		if p.pos >= p.failAt {
			return 0, errReaderBroke
		}
		b = b[:min(int64(len(b)), p.failAt-p.pos)]
	}
	n, err := p.patternReader.Read(b)
	if err == io.EOF {
		p.inPass = false
	}
	return n, err
}

func (p *passCountingReader) Seek(offset int64, whence int) (int64, error) {
	abs, err := p.patternReader.Seek(offset, whence)
	if abs == 0 {
		p.inPass = false
	}
	return abs, err
}

func TestNewS3StorageRefusesBadConfig(t *testing.T) {
	valid := S3Config{Region: "us-east-1", Bucket: "b", AccessKeyID: "k", SecretAccessKey: "s"}
	tests := map[string]func(*S3Config){
		"no bucket":             func(c *S3Config) { c.Bucket = "" },
		"no region":             func(c *S3Config) { c.Region = "" },
		"key without secret":    func(c *S3Config) { c.SecretAccessKey = "" },
		"secret without key":    func(c *S3Config) { c.AccessKeyID = "" },
		"unknown encryption":    func(c *S3Config) { c.ServerSideEncryption = "rot13" },
		"KMS key without KMS":   func(c *S3Config) { c.KMSKeyID = "alias/docs" },
		"lower-case encryption": func(c *S3Config) { c.ServerSideEncryption = "aes256" },
	}
	for name, mutate := range tests {
		t.Run(name, func(t *testing.T) {
			cfg := valid
			mutate(&cfg)
			if _, err := NewS3Storage(context.Background(), cfg); err == nil {
				t.Fatalf("NewS3Storage(%+v) succeeded", cfg)
			}
		})
	}
	kms := valid
	kms.ServerSideEncryption, kms.KMSKeyID = SSEKMS, "alias/docs"
	if _, err := NewS3Storage(context.Background(), kms); err != nil {
		t.Fatalf("NewS3Storage with KMS: %v", err)
	}
}
