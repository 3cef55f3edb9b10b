package kit

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// APIError is a refusal of an API request of the accounts and payments
// areas. It is written as the JSON body {"message": "...", "field": "..."}:
// message is always there and starts with the field at fault when there is
// one; field repeats that field's path on its own. It never holds a value
// the caller sent.
type APIError struct {
	Status  int    `json:"-"`
	Message string `json:"message"`
	Field   string `json:"field,omitempty"`
	// RetryAfter, when positive, is sent as Retry-After in whole seconds,
	// rounded up, at least one.
	RetryAfter time.Duration `json:"-"`
	// Allow, when set, is sent as the Allow header of a 405.
	Allow string `json:"-"`
}

// Error returns the message, so an APIError can travel as an error.
func (e *APIError) Error() string { return e.Message }

// FieldError is a 400 naming the field at fault.
func FieldError(path, msg string) *APIError {
	return &APIError{Status: http.StatusBadRequest, Field: path, Message: path + ": " + msg}
}

// NewError is a refusal with a status and a message.
func NewError(status int, format string, args ...any) *APIError {
	return &APIError{Status: status, Message: fmt.Sprintf(format, args...)}
}

// WriteAPIError answers err in the API's error shape: a *BodyError with its
// status and message, an *APIError as it is, anything else as a 500 that
// says nothing more. A 401 names realm in its WWW-Authenticate challenge.
func WriteAPIError(w http.ResponseWriter, err error, realm string) {
	var ae *APIError
	var be *BodyError
	switch {
	case errors.As(err, &be):
		ae = &APIError{Status: be.Status, Message: be.Message}
	case !errors.As(err, &ae):
		ae = NewError(http.StatusInternalServerError, "internal error")
	}
	if ae.RetryAfter > 0 {
		secs := int((ae.RetryAfter + time.Second - 1) / time.Second)
		w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
	}
	if ae.Allow != "" {
		w.Header().Set("Allow", ae.Allow)
	}
	if ae.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="`+realm+`", error="invalid_token"`)
	}
	WriteJSON(w, ae.Status, ae)
}

// ReadObject reads an API request body: one JSON object sent as
// application/json, numbers kept as json.Number (Body's rules and limit).
// A refusal is a *BodyError, which WriteAPIError answers.
func ReadObject(w http.ResponseWriter, r *http.Request) (map[string]any, error) {
	var m map[string]any
	err := Body{Type: JSONType}.Read(w, r, &m)
	return m, err
}
