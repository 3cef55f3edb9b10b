package accounts

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/payportal/portal/internal/upstream/transport"
)

// ErrPresignedURLExpired reports an upload to a presigned URL after its
// lifetime (120 s from the metadata POST or GET file). Fetch a fresh URL with
// GetFileURL, or post the metadata again, and upload again.
var ErrPresignedURLExpired = errors.New("upstream: presigned URL has expired")

// Error is a failed call: the upstream's refusal (StatusCode and Message from
// its answer) or, with StatusCode 0, a request that got no answer (Err).
type Error struct {
	Method     string
	Path       string // path below the base URL, ids included; never a query
	StatusCode int    // 0 when no answer arrived
	Message    string // the upstream's message
	Field      string // the field at fault, when the upstream names one
	Code       string // the object store's error code, e.g. AccessDenied
	Err        error  // the transport error when StatusCode is 0
}

// Error describes the failure without tokens or bodies.
func (e *Error) Error() string {
	if e.StatusCode == 0 {
		return fmt.Sprintf("upstream %s %s: %v", e.Method, e.Path, e.Err)
	}
	msg := e.Message
	if e.Code != "" {
		msg = e.Code + ": " + msg
	}
	return fmt.Sprintf("upstream %s %s: %d %s: %s", e.Method, e.Path, e.StatusCode, http.StatusText(e.StatusCode), msg)
}

// Unwrap returns the transport error, if any.
func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrPresignedURLExpired) true for the object
// store's 403 AccessDenied "Request has expired".
func (e *Error) Is(target error) bool {
	return target == ErrPresignedURLExpired && e.expired()
}

func (e *Error) expired() bool {
	return e.StatusCode == http.StatusForbidden && e.Code == "AccessDenied" &&
		strings.Contains(strings.ToLower(e.Message), "request has expired")
}

// IsPricingCodeRefused reports whether the upstream refused to start an
// application because of its pricing code: one it never issued to the
// partner (400 naming the field pricingCode). The message says which code,
// in words fit to show beside the pricing model; it is not temporary.
func IsPricingCodeRefused(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.StatusCode == http.StatusBadRequest && e.Field == "pricingCode"
}

// IsTemporary reports whether err may go away if the same call is made
// again later: no answer (network error or attempt timeout), 408, 425, 429,
// 500, 502, 503, 504. A cancelled context is not temporary.
func IsTemporary(err error) bool {
	var e *Error
	return errors.As(err, &e) && transport.Temporary(e.StatusCode, e.Err)
}

// IsPermanent reports whether the upstream refused the call in a way that
// repeating it unchanged cannot fix (400, 401 after a refresh, 403, 404,
// 409, 422, an answer that cannot be read). An expired presigned URL is
// neither permanent nor temporary: it needs a fresh URL.
func IsPermanent(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	return e.StatusCode != 0 && !transport.Temporary(e.StatusCode, nil) && !e.expired()
}
