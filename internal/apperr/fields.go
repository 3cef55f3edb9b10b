package apperr

import (
	"errors"
	"slices"
	"strings"
)

// FieldErrors maps a form field's name to the message shown beside it. It is the
// one shape of refused input in the portal: the drafts, pricing models, users and
// documents all report their messages this way.
type FieldErrors map[string]string

// Add records msg for field unless the field already has a message: the first problem
// found is the one to fix first.
func (e FieldErrors) Add(field, msg string) {
	if _, ok := e[field]; !ok {
		e[field] = msg
	}
}

// Err returns the messages as a *ValidationError, or nil when there are none. Use it
// rather than returning an empty FieldErrors.
func (e FieldErrors) Err() error {
	if len(e) == 0 {
		return nil
	}
	return &ValidationError{Fields: e}
}

// ValidationError refuses input, with a message for each field at fault. A service
// returns it; the handler shows each message beside its field and answers 422, and
// the error handler maps one that reaches it to 422 as well (KindInvalid).
type ValidationError struct{ Fields FieldErrors }

// Invalid returns a ValidationError with one message.
func Invalid(field, msg string) error { return &ValidationError{Fields: FieldErrors{field: msg}} }

// Error names the fields (never their values, which may be personal data).
func (e *ValidationError) Error() string {
	fields := make([]string, 0, len(e.Fields))
	for f := range e.Fields {
		fields = append(fields, f)
	}
	slices.Sort(fields)
	return "invalid input: " + strings.Join(fields, ", ")
}

// FieldsOf returns the field messages of a *ValidationError in err's chain.
func FieldsOf(err error) (FieldErrors, bool) {
	var ve *ValidationError
	if errors.As(err, &ve) {
		return ve.Fields, true
	}
	return nil, false
}
