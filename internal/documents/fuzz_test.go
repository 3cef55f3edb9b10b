package documents

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/payportal/portal/internal/apperr"
)

// FuzzReadUpload feeds any body to the multipart reader of uploads: it never panics, and
// every failure is one the handler answers with 4xx and a message (a refused file, a field
// message, a malformed form, an interrupted upload), never an error that would be a 500.
func FuzzReadUpload(f *testing.F) {
	const boundary = "fuzz-boundary"
	whole := func(closed bool, fields ...string) []byte {
		var buf bytes.Buffer
		w := multipart.NewWriter(&buf)
		_ = w.SetBoundary(boundary)
		for i := 0; i+1 < len(fields); i += 2 {
			_ = w.WriteField(fields[i], fields[i+1])
		}
		fw, _ := w.CreateFormFile(FieldFile, "statement.pdf")
		_, _ = fw.Write([]byte("%PDF-1.7\nstatement\n"))
		if closed {
			_ = w.Close()
		}
		return buf.Bytes()
	}
	f.Add(whole(true, FieldDocType, "bank_statement"))
	f.Add(whole(false, FieldDocType, "bank_statement"))
	f.Add(whole(true, FieldDocType, string(bytes.Repeat([]byte("x"), 2000))))
	f.Add(whole(true))
	f.Add([]byte("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nno filename\r\n--" + boundary + "--\r\n"))
	f.Add([]byte("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.pdf\"\r\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest(http.MethodPost, "/upload", io.MultiReader(bytes.NewReader(body)))
		req.ContentLength = -1 // chunked, as a browser's streamed upload may be
		req.Header.Set("Content-Type", "multipart/form-data; boundary="+boundary)
		fields := url.Values{}
		err := readUpload(httptest.NewRecorder(), req, 1<<20, fields, func(file io.Reader, _ string) error {
			if _, err := io.Copy(io.Discard, file); err != nil {
				return fmt.Errorf("documents: receiving upload: %w", err)
			}
			return nil
		})
		if err == nil {
			return
		}
		var rejected *RejectedError
		_, invalid := apperr.FieldsOf(err)
		if !errors.As(err, &rejected) && !invalid && apperr.KindOf(err) != apperr.KindMalformed && !errors.Is(err, errInterrupted) {
			t.Fatalf("readUpload failed with an error the handler would answer 500: %v", err)
		}
	})
}
