package terminals

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"

	"github.com/payportal/portal/internal/upstream/transport"
)

// Errors a caller tells apart with errors.Is. Calls return an *Error that
// matches one of them, or none for other refusals.
var (
	// ErrNotFound: the location, device or transaction is unknown (404).
	ErrNotFound = errors.New("terminals: not found")
	// ErrUnauthorized: the API key is missing or wrong (401, 403).
	ErrUnauthorized = errors.New("terminals: API key refused")
	// ErrRejected: the cloud refused the request as it is (400, 422), for
	// instance TestMode false on a test location. Nothing was launched.
	ErrRejected = errors.New("terminals: request refused")
	// ErrDeviceBusy: the device is running another transaction (409).
	// Nothing was launched; launch again once that one has finished.
	ErrDeviceBusy = errors.New("terminals: device is busy")
	// ErrUnavailable: the device is offline or the cloud is down (503).
	// Nothing was launched.
	ErrUnavailable = errors.New("terminals: device or cloud unavailable")
	// ErrOutcomeUnknown: a launch may have reached the device but its
	// answer was lost (no answer after the request was sent, 500, 502,
	// 504, or an answer without an id), or the polling budget ran out.
	// Ask the user what the terminal showed; never launch again blindly.
	ErrOutcomeUnknown = errors.New("terminals: outcome unknown")
	// ErrNotReady: the cardholder has not finished; read again later.
	ErrNotReady = errors.New("terminals: result not ready yet")
	// ErrBudgetExceeded: no result within the polling budget. It also
	// matches ErrOutcomeUnknown.
	ErrBudgetExceeded = errors.New("terminals: no result within the polling budget")
	// ErrInvalid: the client refused to send a request that lacks a field
	// its transaction type needs (see FieldError).
	ErrInvalid = errors.New("terminals: invalid request")
)

// Error is a failed call: the cloud's refusal (StatusCode, and Status and
// Message from its envelope) or, with StatusCode 0, a call that got no
// answer (Err).
type Error struct {
	Op         string // "config", "launch" or "result"
	Method     string
	Path       string // path below the base URL with its ids; never a query
	StatusCode int    // HTTP status; 0 when no answer arrived
	Status     string // the envelope's Status, e.g. "Conflict"
	Message    string // the envelope's Error.Message
	Err        error  // the transport error when StatusCode is 0
	// Unknown is set on a launch that may have reached the device.
	Unknown bool
	sent    bool // with StatusCode 0: the whole request was written
}

// Error describes the failure without API keys or bodies.
func (e *Error) Error() string {
	prefix := fmt.Sprintf("terminals %s %s %s", e.Op, e.Method, e.Path)
	if e.Unknown {
		prefix += " (outcome unknown)"
	}
	if e.StatusCode == 0 {
		return fmt.Sprintf("%s: %v", prefix, e.Err)
	}
	return fmt.Sprintf("%s: %d %s: %s", prefix, e.StatusCode, cmp.Or(e.Status, http.StatusText(e.StatusCode)), e.Message)
}

// Unwrap returns the transport error, if any.
func (e *Error) Unwrap() error { return e.Err }

// Is matches the sentinel errors of the package by status.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrOutcomeUnknown:
		return e.Unknown
	case ErrNotFound:
		return e.StatusCode == http.StatusNotFound
	case ErrUnauthorized:
		return e.StatusCode == http.StatusUnauthorized || e.StatusCode == http.StatusForbidden
	case ErrRejected:
		return e.StatusCode == http.StatusBadRequest || e.StatusCode == http.StatusUnprocessableEntity
	case ErrDeviceBusy:
		return e.StatusCode == http.StatusConflict
	case ErrUnavailable:
		return e.StatusCode == http.StatusServiceUnavailable && !e.Unknown
	}
	return false
}

// IsTemporary reports whether a read (configuration or result) may
// succeed if made again later: no answer, 408, 425, 429, 500, 502, 503,
// 504. A cancelled context is not temporary. For a launch, look at
// ErrOutcomeUnknown, ErrDeviceBusy and ErrUnavailable instead.
func IsTemporary(err error) bool {
	var e *Error
	return errors.As(err, &e) && transport.Temporary(e.StatusCode, e.Err)
}

// FieldError is a request the client refused to send; it matches
// ErrInvalid.
type FieldError struct {
	Field   string // the wire name, e.g. "Data.Amount"
	Message string
}

// Error names the field.
func (e *FieldError) Error() string { return "terminals: " + e.Field + ": " + e.Message }

// Is matches ErrInvalid.
func (e *FieldError) Is(target error) bool { return target == ErrInvalid }

// budgetError ends a polling whose budget ran out.
type budgetError struct {
	id    string
	polls int
	last  error // the last failed read, if any
}

func (e *budgetError) Error() string {
	msg := fmt.Sprintf("terminals: no result for %s after %d reads within the polling budget", e.id, e.polls)
	if e.last != nil {
		msg += "; last read: " + e.last.Error()
	}
	return msg
}

func (e *budgetError) Is(target error) bool {
	return target == ErrBudgetExceeded || target == ErrOutcomeUnknown
}

func (e *budgetError) Unwrap() error { return e.last }
