package accounts

import (
	"net/http"

	"github.com/payportal/portal/internal/upstream/transport"
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

// repeats reports whether the policy repeats a call after a.
func (p retryPolicy) repeats(a transport.Answer) bool {
	if p == retryUnprocessed {
		return a.Unsent() || a.Status == http.StatusServiceUnavailable
	}
	return a.Transient()
}

// answerError is the *Error of a call that got no answer, or a refusal.
func answerError(method, path string, a transport.Answer) *Error {
	if a.Status == 0 {
		return &Error{Method: method, Path: path, Err: a.Err}
	}
	r := a.Refusal()
	return &Error{Method: method, Path: path, StatusCode: a.Status, Message: r.Message, Field: r.Field, Code: r.Code}
}
