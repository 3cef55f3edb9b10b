package accounts

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// apiError is a refusal of an API request. It is written as the JSON body
// {"message": "...", "field": "..."}: message is always there and names the
// field when one is at fault; field repeats that field's path on its own.
type apiError struct {
	Status     int    `json:"-"`
	Message    string `json:"message"`
	Field      string `json:"field,omitempty"`
	RetryAfter string `json:"-"`
}

// Error returns the message, so an apiError can travel as an error.
func (e *apiError) Error() string { return e.Message }

// fieldError is a 400 naming the field at fault.
func fieldError(path, msg string) *apiError {
	return &apiError{Status: http.StatusBadRequest, Field: path, Message: path + ": " + msg}
}

// newError is a refusal with a status and a message.
func newError(status int, format string, args ...any) *apiError {
	return &apiError{Status: status, Message: fmt.Sprintf(format, args...)}
}

// apiHandler is an API endpoint: it writes its answer on success and returns
// an *apiError (or another error, answered as 500) on refusal.
type apiHandler func(w http.ResponseWriter, r *http.Request) error

// writeAPIError answers err in the API's error shape.
func writeAPIError(w http.ResponseWriter, err error) {
	var ae *apiError
	var be *kit.BodyError
	switch {
	case errors.As(err, &be):
		ae = &apiError{Status: be.Status, Message: be.Message}
	case !errors.As(err, &ae):
		ae = newError(http.StatusInternalServerError, "internal error")
	}
	if ae.RetryAfter != "" {
		w.Header().Set("Retry-After", ae.RetryAfter)
	}
	if ae.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="sandbox", error="invalid_token"`)
	}
	kit.WriteJSON(w, ae.Status, ae)
}

// readJSON reads an API request body: one JSON object sent as
// application/json, numbers kept as json.Number (kit.Body's rules and
// limit). A refusal is a *kit.BodyError, which writeAPIError answers.
func readJSON(w http.ResponseWriter, r *http.Request) (map[string]any, error) {
	var m map[string]any
	err := kit.Body{Type: kit.JSONType}.Read(w, r, &m)
	return m, err
}
