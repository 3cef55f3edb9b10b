package accounts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"

	"github.com/payportal/portal/internal/upstream/transport"
)

// UploadToPresignedURL streams size bytes of body to a presigned URL with a
// PUT carrying exact Content-Length and Content-Type headers, as the URL was
// signed for. The body is never held in memory. An expired URL gives an
// error matching ErrPresignedURLExpired. When body is an io.Seeker (an
// *os.File, a bytes.Reader) a transient failure is retried from the same
// offset; otherwise the caller repeats the upload.
func (c *Client) UploadToPresignedURL(ctx context.Context, rawURL string, body io.Reader, size int64, contentType string) error {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("upstream: presigned URL is not an absolute http(s) URL")
	}
	if size < 0 {
		return errors.New("upstream: upload size must not be negative")
	}
	seeker, rewindable := body.(io.Seeker)
	var offset int64
	if rewindable {
		if offset, err = seeker.Seek(0, io.SeekCurrent); err != nil {
			rewindable = false
		}
	}
	req := transport.Request{Method: http.MethodPut, URL: u, Length: size, ContentType: contentType, Timeout: c.cfg.UploadTimeout,
		Stream: func(int) (io.ReadCloser, error) { return &guardedReader{r: io.LimitReader(body, size)}, nil }}
	a, err := c.t.Do(ctx, req, transport.RepeatWhen(func(a transport.Answer) bool {
		if !rewindable || !uploadRetryable(a.Status) {
			return false
		}
		_, err := seeker.Seek(offset, io.SeekStart)
		return err == nil
	}))
	switch {
	case err != nil:
		return fmt.Errorf("upstream upload: %w", err)
	case !a.OK():
		return answerError(http.MethodPut, u.Path, a)
	}
	return nil
}

// uploadRetryable reports the failures worth another PUT (which is
// idempotent): no answer, 429, and the 5xx answers S3 asks clients to retry.
func uploadRetryable(status int) bool {
	switch status {
	case 0, http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// errBodyClosed is what a guarded body returns once its attempt is over.
var errBodyClosed = errors.New("upstream: upload attempt is over")

// guardedReader passes reads through until closed, and serialises reads
// with Close so no read is under way once Close returns: the HTTP client may
// still read the body after its attempt (when the store answers before the
// upload is complete), and a retry rewinds the body.
type guardedReader struct {
	mu     sync.Mutex
	r      io.Reader
	closed bool
}

func (g *guardedReader) Read(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return 0, errBodyClosed
	}
	return g.r.Read(p)
}

// Close ends the reads; it does not close the caller's body.
func (g *guardedReader) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	return nil
}
