// Package apperr defines the kinds of failure that domain services report and the
// web layer turns into responses in one place. A domain error carries a message
// that is safe to show a user; the wrapped cause is only logged.
package apperr

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Kind classifies a domain failure.
type Kind int

// The kinds of failure. Each maps to one HTTP status in the web error handler.
const (
	KindInvalid     Kind = iota + 1 // 422: the input is wrong
	KindNotFound                    // 404: absent, or not the caller's to see
	KindForbidden                   // 403: the caller's role may not do this
	KindConflict                    // 409: the state forbids it (locked, duplicate, in use)
	KindTooMany                     // 429: throttled
	KindUnavailable                 // 503: a dependency is down
	KindMalformed                   // 400: the request itself cannot be read (a broken body)
)

// Error is a domain failure with a user-facing message.
type Error struct {
	Kind    Kind
	Message string
	Err     error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// New returns an error of kind with a user-facing message.
func New(kind Kind, format string, args ...any) error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an error of kind with a user-facing message and a hidden cause.
func Wrap(kind Kind, err error, message string) error {
	return &Error{Kind: kind, Message: message, Err: err}
}

// KindOf returns the kind of the first *Error in err's chain (KindInvalid for a
// *ValidationError), or 0.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	if _, ok := FieldsOf(err); ok {
		return KindInvalid
	}
	return 0
}

// MessageOf returns the user-facing message of err, or "". A *ValidationError that
// reached no form lists its messages.
func MessageOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	if fields, ok := FieldsOf(err); ok {
		msgs := make([]string, 0, len(fields))
		for _, m := range fields {
			msgs = append(msgs, m)
		}
		slices.Sort(msgs)
		return strings.Join(msgs, " ")
	}
	return ""
}
