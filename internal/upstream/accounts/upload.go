package accounts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"
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
	for attempt := 1; ; attempt++ {
		res := c.uploadAttempt(ctx, u, body, size, contentType, attempt)
		if res.err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("upstream upload: %w", ctx.Err())
		}
		if !rewindable || attempt >= c.cfg.MaxAttempts || !uploadRetryable(res.status) {
			return res.err
		}
		if _, err := seeker.Seek(offset, io.SeekStart); err != nil {
			return res.err
		}
		wait := backoff(attempt, c.cfg.RetryBaseDelay, c.cfg.RetryMaxDelay)
		if res.retryAfter > 0 {
			wait = min(res.retryAfter, c.cfg.MaxRetryAfter)
		}
		if err := c.cfg.Sleep(ctx, wait); err != nil {
			return fmt.Errorf("upstream upload: %w", err)
		}
	}
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

// uploadAttempt makes one PUT.
func (c *Client) uploadAttempt(ctx context.Context, u *url.URL, body io.Reader, size int64, contentType string, n int) attemptResult {
	actx, cancel := context.WithTimeout(ctx, c.cfg.UploadTimeout)
	defer cancel()
	// The transport may still read the body after Do returns (when the store
	// answers before the upload is complete); the guard stops such reads so
	// a retry can rewind the body safely.
	guard := &guardedReader{r: io.LimitReader(body, size)}
	defer guard.Close()
	var reqBody io.ReadCloser = guard
	if size == 0 {
		reqBody = http.NoBody
	}
	req, err := http.NewRequestWithContext(actx, http.MethodPut, u.String(), reqBody)
	if err != nil {
		return attemptResult{err: &Error{Method: http.MethodPut, Path: u.Path, Err: err}}
	}
	req.ContentLength = size
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("User-Agent", c.cfg.UserAgent)
	start := time.Now()
	resp, err := c.cfg.HTTPClient.Do(req)
	// Never log the query: it holds the URL's signature.
	where := u.Scheme + "://" + u.Host + u.Path
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			ue.URL = where // the transport's error would carry the signature
		}
		c.logUpload(where, n, 0, size, time.Since(start), err)
		return attemptResult{err: &Error{Method: http.MethodPut, Path: u.Path, Err: err}}
	}
	defer resp.Body.Close()
	c.logUpload(where, n, resp.StatusCode, size, time.Since(start), nil)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return attemptResult{
			status: resp.StatusCode, err: errorFromAnswer(http.MethodPut, u.Path, resp),
			retryAfter: retryAfter(resp.Header.Get("Retry-After"), c.cfg.Now()),
		}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswer))
	return attemptResult{status: resp.StatusCode}
}

func (c *Client) logUpload(where string, attempt, status int, size int64, d time.Duration, err error) {
	attrs := []any{"method", http.MethodPut, "url", where, "attempt", attempt, "status", status, "bytes", size, "duration", d}
	if err != nil {
		c.log.Warn("upstream upload failed", append(attrs, "err", err)...)
		return
	}
	c.log.Info("upstream upload", attrs...)
}

// errBodyClosed is what a guarded body returns once its attempt is over.
var errBodyClosed = errors.New("upstream: upload attempt is over")

// guardedReader passes reads through until closed, and serialises reads
// with Close so no read is under way once Close returns.
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
