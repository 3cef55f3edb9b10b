package payments

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/payportal/portal/internal/upstream/transport"
)

// Sentinel errors; test them with errors.Is.
var (
	// ErrNotFound: no transaction with that externalTransactionId (read-back),
	// or the uniqueTransId a request refers to does not exist.
	ErrNotFound = errors.New("payments: transaction not found")
	// ErrAlreadySettled: a void (or adjustment) was refused because the
	// transaction has settled; refund it instead.
	ErrAlreadySettled = errors.New("payments: transaction already settled")
	// ErrIdempotencyKeyReused: the idempotency key was used before with
	// another request body.
	ErrIdempotencyKeyReused = errors.New("payments: idempotency key reused with another request")
	// ErrUnknownOutcome: the request may or may not have been carried out
	// and reading it back did not tell. Resolve it later with Get, never by
	// sending a different request.
	ErrUnknownOutcome = errors.New("payments: outcome unknown")
	// ErrUnauthorized: the account's token was refused (401 or 403).
	ErrUnauthorized = errors.New("payments: credentials refused")
)

// Error is a call the upstream refused (StatusCode and Message from its
// answer) or, with StatusCode 0, a request that got no answer (Err).
type Error struct {
	Op         string // operation, e.g. "sale"
	Method     string
	Path       string // below the base URL: account id and ids only, never a body
	StatusCode int    // 0 when no answer arrived
	Message    string // the upstream's message
	Err        error  // the transport error when StatusCode is 0
}

// Error describes the failure without tokens, bodies or card data.
func (e *Error) Error() string {
	if e.StatusCode == 0 {
		return fmt.Sprintf("payments %s: %s %s: %v", e.Op, e.Method, e.Path, e.Err)
	}
	return fmt.Sprintf("payments %s: %s %s: %d %s: %s", e.Op, e.Method, e.Path, e.StatusCode,
		http.StatusText(e.StatusCode), e.Message)
}

// Unwrap returns the transport error, if any.
func (e *Error) Unwrap() error { return e.Err }

// Is maps answers to the sentinel errors.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrNotFound:
		return e.StatusCode == http.StatusNotFound
	case ErrAlreadySettled:
		return e.StatusCode >= 400 && e.StatusCode < 500 && strings.Contains(strings.ToLower(e.Message), "settled")
	case ErrIdempotencyKeyReused:
		return e.StatusCode == http.StatusUnprocessableEntity
	case ErrUnauthorized:
		return e.StatusCode == http.StatusUnauthorized || e.StatusCode == http.StatusForbidden
	}
	return false
}

// UnknownOutcomeError is a write whose outcome the client could not learn:
// every attempt timed out, was dropped or failed with 5xx, and reading the
// transaction back by ExternalTransactionID found nothing or failed too.
// The transaction may still appear: keep reading it back (Get).
type UnknownOutcomeError struct {
	Op                    string
	ExternalTransactionID string
	Last                  error // the last failure seen
}

// Error describes the unknown outcome.
func (e *UnknownOutcomeError) Error() string {
	return fmt.Sprintf("payments %s: outcome of %s unknown: %v", e.Op, e.ExternalTransactionID, e.Last)
}

// Unwrap returns the last failure.
func (e *UnknownOutcomeError) Unwrap() error { return e.Last }

// Is makes errors.Is(err, ErrUnknownOutcome) true.
func (e *UnknownOutcomeError) Is(target error) bool { return target == ErrUnknownOutcome }

// IsTemporary reports whether err may go away if the same call is made
// again later: no answer, 408, 425, 429, 5xx, or an unknown outcome. A
// cancelled context is not temporary.
func IsTemporary(err error) bool {
	if errors.Is(err, ErrUnknownOutcome) {
		return true
	}
	var e *Error
	return errors.As(err, &e) && (transport.Temporary(e.StatusCode, e.Err) || e.StatusCode >= 500)
}

// ValidationError is a request the client refused to send because a field
// cannot be right; Field names it as the upstream would.
type ValidationError struct {
	Field   string
	Message string
}

// Error names the field.
func (e *ValidationError) Error() string { return "payments: " + e.Field + ": " + e.Message }
