package transport

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sync/atomic"
	"time"
)

// MaxAnswer bounds what is read of an answer's body; the rest is drained
// (within the same bound) so the connection can be used again.
const MaxAnswer = 1 << 20

// Request is one request, sent as often as its client's rules allow.
type Request struct {
	// Op names the operation in the log line ("sale", "launch"); optional.
	Op     string
	Method string
	// Path is below the client's base URL, its ids escaped. It is logged:
	// it must never carry a query or a secret.
	Path string
	// URL, when set, is the whole address instead (a presigned upload);
	// only its scheme, host and path are ever logged or kept in an error.
	URL *url.URL
	// Header holds the area's own headers (an API key, an idempotency
	// key). Content-Type, Accept and User-Agent are set by Send.
	Header http.Header
	// Prepare, when set, is called before each attempt to set the headers
	// that change between attempts (a refreshed bearer token); its error
	// ends the request unsent.
	Prepare func(ctx context.Context, h http.Header) error
	// Payload is a JSON body, sent as application/json; nil sends none.
	Payload []byte
	// Stream, when set, opens a body of Length bytes of ContentType for
	// each attempt instead of Payload (an upload). The attempt closes it
	// once the HTTP client is done with it.
	Stream      func(attempt int) (io.ReadCloser, error)
	Length      int64
	ContentType string
	// Timeout bounds each attempt; 0 is the client's Timeout.
	Timeout time.Duration
	// Attempts bounds the attempts of Do; 0 is the client's MaxAttempts.
	Attempts int
	// Wrote, when set, is told (on the client's clock) that the request
	// has been fully written.
	Wrote func(time.Time)
}

// where is the request's address as it may be logged and kept: the path
// below the base URL, or scheme, host and path of a whole URL.
func (r *Request) where() (key, value string) {
	if r.URL != nil {
		return "url", r.URL.Scheme + "://" + r.URL.Host + r.URL.Path
	}
	return "path", r.Path
}

// Answer is the outcome of one attempt.
type Answer struct {
	// Status is the HTTP status; 0 when no answer arrived (Err says why).
	Status int
	// Sent reports that the whole request was written: with no answer, the
	// upstream may have acted on it.
	Sent bool
	// Header and Body are the answer's; Body holds at most MaxAnswer bytes.
	Header http.Header
	Body   []byte
	// RetryAfter is the wait a refusal asked for (0 when none).
	RetryAfter time.Duration
	// Err is the transport's error when no answer arrived, or the error
	// that cut the body short; it never carries a URL's query.
	Err error
	// Attempt counts the attempts of the request, this one included.
	Attempt int
}

// OK reports a 2xx answer.
func (a Answer) OK() bool { return a.Status >= 200 && a.Status <= 299 }

// Send makes attempt n of req, bounded by its timeout, and logs it. err is
// set only when the request could not be made (Prepare or Stream failed, or
// the address is malformed): then nothing was sent.
func (c *Client) Send(ctx context.Context, req Request, n int) (Answer, error) {
	actx, cancel := context.WithTimeout(ctx, cmp.Or(req.Timeout, c.cfg.Timeout))
	defer cancel()
	var sent atomic.Bool
	actx = httptrace.WithClientTrace(actx, &httptrace.ClientTrace{
		WroteRequest: func(i httptrace.WroteRequestInfo) {
			sent.Store(i.Err == nil)
			if req.Wrote != nil && i.Err == nil {
				req.Wrote(c.cfg.Now())
			}
		},
	})
	hreq, body, err := c.build(ctx, actx, req, n)
	if err != nil {
		return Answer{Err: err, Attempt: n}, err
	}
	if body != nil {
		// The HTTP client may still read the body after Do returns (when the
		// upstream answers before it is all sent); closing it here ends that
		// before the next attempt rewinds it.
		defer func() { _ = body.Close() }()
	}
	start := time.Now()
	resp, err := c.cfg.HTTPClient.Do(hreq)
	if err != nil {
		a := Answer{Err: withoutQuery(err, req), Sent: sent.Load(), Attempt: n}
		c.logAttempt(req, a, time.Since(start))
		return a, nil
	}
	defer func() { _ = resp.Body.Close() }()
	a := Answer{Status: resp.StatusCode, Sent: true, Header: resp.Header, Attempt: n}
	a.Body, a.Err = io.ReadAll(io.LimitReader(resp.Body, MaxAnswer))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, MaxAnswer))
	if !a.OK() {
		a.RetryAfter = RetryAfter(resp.Header.Get("Retry-After"), c.cfg.Now())
	}
	c.logAttempt(req, a, time.Since(start))
	return a, nil
}

// build makes the HTTP request of attempt n, bounded by actx, with its body
// when it has one. Prepare runs under ctx, the request's own: a token
// exchange it makes is not bounded by this attempt's timeout.
func (c *Client) build(ctx, actx context.Context, req Request, n int) (*http.Request, io.ReadCloser, error) {
	target := c.cfg.BaseURL + req.Path
	if req.URL != nil {
		target = req.URL.String()
	}
	var body io.ReadCloser
	if req.Stream != nil {
		var err error
		if body, err = req.Stream(n); err != nil {
			return nil, nil, err
		}
	} else if req.Payload != nil {
		body = io.NopCloser(bytes.NewReader(req.Payload))
	}
	var rd io.Reader = body
	if body == nil || (req.Stream != nil && req.Length == 0) {
		rd = http.NoBody
	}
	hreq, err := http.NewRequestWithContext(actx, req.Method, target, rd)
	if err != nil {
		if body != nil {
			_ = body.Close()
		}
		return nil, nil, withoutQuery(err, req)
	}
	for k, v := range req.Header {
		// Assigned as given, so a header the upstream publishes in lower case
		// (idempotency-key) keeps its spelling.
		hreq.Header[k] = v
	}
	if req.Stream != nil {
		hreq.ContentLength = req.Length
		hreq.Header.Set("Content-Type", req.ContentType)
	} else {
		hreq.Header.Set("Content-Type", "application/json")
		hreq.Header.Set("Accept", "application/json")
	}
	hreq.Header.Set("User-Agent", c.cfg.UserAgent)
	if req.Prepare != nil {
		if err := req.Prepare(ctx, hreq.Header); err != nil {
			if body != nil {
				_ = body.Close()
			}
			return nil, nil, err
		}
	}
	return hreq, body, nil
}

// withoutQuery keeps a whole URL's query (a presigned URL's signature) out of
// a transport error, which would otherwise quote it.
func withoutQuery(err error, req Request) error {
	var ue *url.Error
	if req.URL != nil && errors.As(err, &ue) {
		_, ue.URL = req.where()
	}
	return err
}

// logAttempt writes one line per attempt: never a query, a header or a body.
func (c *Client) logAttempt(req Request, a Answer, d time.Duration) {
	key, where := req.where()
	attrs := make([]any, 0, 16)
	if req.Op != "" {
		attrs = append(attrs, "op", req.Op)
	}
	attrs = append(attrs, "method", req.Method, key, where, "attempt", a.Attempt, "status", a.Status)
	if req.Stream != nil {
		attrs = append(attrs, "bytes", req.Length)
	}
	attrs = append(attrs, "duration", d)
	if c.cfg.LogAnswer != nil && len(a.Body) > 0 {
		attrs = append(attrs, c.cfg.LogAnswer(a.Body)...)
	}
	if a.Status == 0 {
		c.cfg.Logger.Warn(c.cfg.Name+" call failed", append(attrs, "err", a.Err)...)
		return
	}
	c.cfg.Logger.Info(c.cfg.Name+" call", attrs...)
}
