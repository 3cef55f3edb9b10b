package payments

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// apiError is a refusal, written as {"message": "...", "field": "..."}:
// message is always there and starts with the field at fault when there
// is one; field repeats that field's path on its own. It never holds a
// value the caller sent.
type apiError struct {
	Status     int           `json:"-"`
	Message    string        `json:"message"`
	Field      string        `json:"field,omitempty"`
	RetryAfter time.Duration `json:"-"`
	Allow      string        `json:"-"`
}

// Error returns the message.
func (e *apiError) Error() string { return e.Message }

// fieldError is a 400 naming the field at fault.
func fieldError(path, msg string) *apiError {
	return &apiError{Status: http.StatusBadRequest, Field: path, Message: path + ": " + msg}
}

// newError is a refusal with a status and a message.
func newError(status int, format string, args ...any) *apiError {
	return &apiError{Status: status, Message: fmt.Sprintf(format, args...)}
}

// writeError answers err in the API's error shape; anything but an
// *apiError is a 500 that says nothing more.
func writeError(w http.ResponseWriter, err error) {
	var ae *apiError
	var be *kit.BodyError
	switch {
	case errors.As(err, &be):
		ae = &apiError{Status: be.Status, Message: be.Message}
	case !errors.As(err, &ae):
		ae = newError(http.StatusInternalServerError, "internal error")
	}
	if ae.RetryAfter > 0 {
		secs := int((ae.RetryAfter + time.Second - 1) / time.Second)
		w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
	}
	if ae.Allow != "" {
		w.Header().Set("Allow", ae.Allow)
	}
	if ae.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="virtualterminal", error="invalid_token"`)
	}
	kit.WriteJSON(w, ae.Status, ae)
}

// envelope wraps an answer as the API sends it.
type envelope struct {
	TransactionResponse answer `json:"transactionResponse"`
}

// encodeAnswer renders an answer's body.
func encodeAnswer(a answer) []byte {
	raw, _ := json.Marshal(envelope{TransactionResponse: a})
	return append(raw, '\n')
}

// readBody reads a JSON object sent as application/json, numbers kept as
// json.Number (kit.Body's rules and limit). A refusal is a *kit.BodyError,
// which writeError answers.
func readBody(w http.ResponseWriter, r *http.Request) (map[string]any, error) {
	var m map[string]any
	err := kit.Body{Type: kit.JSONType}.Read(w, r, &m)
	return m, err
}
