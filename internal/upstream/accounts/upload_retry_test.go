package accounts_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	upstream "github.com/payportal/portal/internal/upstream/accounts"
)

// slowDownOnce answers the first object-store PUT with S3's 503 SlowDown.
func slowDownOnce(puts *atomic.Int32) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPut && strings.HasPrefix(r.URL.Path, "/_store/") && puts.Add(1) == 1 {
				w.Header().Set("Content-Type", "application/xml")
				w.WriteHeader(http.StatusServiceUnavailable)
				_, _ = io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

func TestUploadRetry(t *testing.T) {
	content := []byte("%PDF-1.7 retried upload")
	tests := []struct {
		name    string
		body    func() io.Reader
		wantErr bool
		puts    int32
	}{
		{"seekable body is retried from its start", func() io.Reader { return bytes.NewReader(content) }, false, 2},
		{"other body is left to the caller", func() io.Reader { return io.MultiReader(bytes.NewReader(content)) }, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var puts atomic.Int32
			e := newEnv(t, nil, slowDownOnce(&puts))
			c := e.client(t, nil)
			id := mustStart(t, e, c)
			up, err := c.CreateFile(context.Background(), id, pdfMeta(content))
			if err != nil {
				t.Fatalf("create file: %v", err)
			}
			err = c.UploadToPresignedURL(context.Background(), up.PresignedURL, tt.body(), int64(len(content)), "application/pdf")
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			var ue *upstream.Error
			if tt.wantErr && (!errors.As(err, &ue) || ue.Code != "SlowDown" || !upstream.IsTemporary(err)) {
				t.Errorf("err = %v, want temporary SlowDown", err)
			}
			if n := puts.Load(); n != tt.puts {
				t.Errorf("PUTs = %d, want %d", n, tt.puts)
			}
			if got, ok := e.sb.FileSHA256(id, up.FileID); !tt.wantErr && (!ok || got != sha(content)) {
				t.Errorf("stored content differs")
			}
		})
	}
}

func TestUploadErrorsHideTheSignature(t *testing.T) {
	drop := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPut {
				panic(http.ErrAbortHandler)
			}
			next.ServeHTTP(w, r)
		})
	}
	var logs syncBuffer
	e := newEnv(t, nil, drop)
	c := e.client(t, func(cfg *upstream.Config) {
		cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	})
	id := mustStart(t, e, c)
	content := []byte("%PDF")
	up, err := c.CreateFile(context.Background(), id, pdfMeta(content))
	if err != nil {
		t.Fatalf("create file: %v", err)
	}
	err = c.UploadToPresignedURL(context.Background(), up.PresignedURL, bytes.NewReader(content), int64(len(content)), "application/pdf")
	if !upstream.IsTemporary(err) {
		t.Fatalf("err = %v, want temporary", err)
	}
	if strings.Contains(err.Error(), "Signature") || strings.Contains(logs.String(), "Signature") {
		t.Errorf("signature leaked:\nerr: %v\nlogs: %s", err, logs.String())
	}
}
