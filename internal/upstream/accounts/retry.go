package accounts

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// retryPolicy says when a failed call may be repeated.
type retryPolicy int

const (
	// retrySafe repeats after no answer, 429, 502, 503 and 504: for calls
	// that are safe to repeat (start is idempotent by externalApplicationId,
	// PATCH is a merge, the link is stable, GETs, /auth).
	retrySafe retryPolicy = iota
	// retryUnprocessed repeats only when the upstream certainly did not act:
	// the request was not fully written, or the answer is 429 or 503. It is
	// for the file metadata POST, where each success creates a file record.
	retryUnprocessed
)

// allows reports whether the policy repeats after res.
func (p retryPolicy) allows(res attemptResult) bool {
	switch res.status {
	case 0:
		return p == retrySafe || !res.sent
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return true
	case http.StatusBadGateway, http.StatusGatewayTimeout:
		return p == retrySafe
	}
	return false
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

// errorFromAnswer builds an *Error from a refusal, reading the message from
// the JSON body ({"message": ...}), an S3 XML error, or plain text.
func errorFromAnswer(method, path string, resp *http.Response) *Error {
	e := &Error{Method: method, Path: path, StatusCode: resp.StatusCode}
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	raw = bytes.TrimSpace(raw)
	var j struct {
		Message string `json:"message"`
		Error   string `json:"error"`
		Field   string `json:"field"`
	}
	var x struct {
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	}
	switch {
	case json.Unmarshal(raw, &j) == nil && (j.Message != "" || j.Error != ""):
		e.Message, e.Field = or(j.Message, j.Error), j.Field
	case bytes.HasPrefix(raw, []byte("<")) && xml.Unmarshal(raw, &x) == nil && x.Code != "":
		e.Code, e.Message = x.Code, x.Message
	case len(raw) > 0 && !bytes.HasPrefix(raw, []byte("<")):
		e.Message = string(raw[:min(len(raw), 200)])
	default:
		e.Message = http.StatusText(resp.StatusCode)
	}
	return e
}
