package payments

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// maxAnswer bounds the answers the client reads.
const maxAnswer = 1 << 20

// attemptSpec is one request.
type attemptSpec struct {
	op, method, path string
	payload          []byte // nil for GET
	token, key       string
	n                int
}

// attemptResult is the outcome of one attempt.
type attemptResult struct {
	txn        *Transaction
	err        error
	status     int  // 0 when no answer arrived
	sent       bool // the whole request was written
	garbled    bool // a 2xx whose body could not be read
	retryAfter time.Duration
}

// verdict classifies a failed attempt.
type verdict int

const (
	// refused: the upstream answered and did nothing (4xx); repeating the
	// same request cannot help.
	refused verdict = iota
	// notDone: the upstream certainly did not act (429, or the request was
	// never fully written); repeat it after a wait.
	notDone
	// maybeDone: the request was sent and the answer is lost, a 5xx, an
	// unreadable 2xx or 409 "still processing": read the transaction back.
	maybeDone
)

func (r attemptResult) verdict() verdict {
	switch {
	case r.status == http.StatusTooManyRequests, r.status == 0 && !r.sent:
		return notDone
	case r.status == 0, r.status >= 500, r.garbled, r.status == http.StatusRequestTimeout:
		return maybeDone
	case r.status == http.StatusConflict && !errors.Is(r.err, ErrAlreadySettled):
		// 409 without "settled" is the idempotency key's request still
		// being processed.
		return maybeDone
	}
	return refused
}

// attempt makes one request, bounded by the attempt timeout.
func (c *Client) attempt(ctx context.Context, s attemptSpec) attemptResult {
	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	var sent atomic.Bool
	actx = httptrace.WithClientTrace(actx, &httptrace.ClientTrace{
		WroteRequest: func(i httptrace.WroteRequestInfo) { sent.Store(i.Err == nil) },
	})
	var body io.Reader
	if s.payload != nil {
		body = bytes.NewReader(s.payload)
	}
	req, err := http.NewRequestWithContext(actx, s.method, c.cfg.BaseURL+s.path, body)
	if err != nil {
		return attemptResult{err: &Error{Op: s.op, Method: s.method, Path: s.path, Err: err}}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.cfg.UserAgent)
	req.Header.Set("Authorization", "Bearer "+s.token)
	// Both names are sent as published (lowercase key, camel-case version);
	// assigning the map keeps them from being canonicalised.
	if s.key != "" {
		req.Header["idempotency-key"] = []string{s.key}
	}
	if c.cfg.AppVersion != "" {
		req.Header["appVersion"] = []string{c.cfg.AppVersion}
	}
	start := time.Now()
	resp, err := c.cfg.HTTPClient.Do(req)
	if err != nil {
		c.logAttempt(s, 0, time.Since(start), err)
		return attemptResult{err: &Error{Op: s.op, Method: s.method, Path: s.path, Err: err}, sent: sent.Load()}
	}
	defer resp.Body.Close()
	res := attemptResult{status: resp.StatusCode, sent: true}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		res.err = errorFromAnswer(s, resp)
		res.retryAfter = retryAfter(resp.Header.Get("Retry-After"), c.cfg.Now())
		c.logAttempt(s, resp.StatusCode, time.Since(start), nil)
		return res
	}
	var answer struct {
		TransactionResponse *Transaction `json:"transactionResponse"`
	}
	err = json.NewDecoder(io.LimitReader(resp.Body, maxAnswer)).Decode(&answer)
	if err == nil && answer.TransactionResponse == nil {
		err = io.ErrUnexpectedEOF
	}
	c.logAttempt(s, resp.StatusCode, time.Since(start), nil)
	if err != nil {
		res.garbled = true
		res.err = &Error{Op: s.op, Method: s.method, Path: s.path, StatusCode: resp.StatusCode,
			Message: "answer is not a transactionResponse: " + err.Error()}
		return res
	}
	res.txn = answer.TransactionResponse
	return res
}

// marshalBody encodes the body without escaping HTML characters.
func marshalBody(b wireBody) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(b); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// errorFromAnswer builds an *Error from a refusal, reading the upstream's
// {"message": "..."}; it never keeps the body itself.
func errorFromAnswer(s attemptSpec, resp *http.Response) *Error {
	e := &Error{Op: s.op, Method: s.method, Path: s.path, StatusCode: resp.StatusCode}
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var j struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &j) == nil && j.Message != "" {
		e.Message = j.Message
	} else {
		e.Message = http.StatusText(resp.StatusCode)
	}
	return e
}

// backoff is the wait before attempt n+1: base·2^(n-1), capped, with half
// of it random ("equal jitter") so clients that failed together spread out.
func backoff(n int, base, ceiling time.Duration) time.Duration {
	d := base
	for i := 1; i < n && d < ceiling; i++ {
		d *= 2
	}
	d = min(d, ceiling)
	half := d / 2
	return half + time.Duration(rand.Int64N(int64(half)+1))
}

// retryAfter reads a Retry-After header: seconds or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil && secs >= 0 {
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
