package accounts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
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

// writeJSON writes v as a JSON answer.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeAPIError answers err in the API's error shape.
func writeAPIError(w http.ResponseWriter, err error) {
	var ae *apiError
	if !errors.As(err, &ae) {
		ae = newError(http.StatusInternalServerError, "internal error")
	}
	if ae.RetryAfter != "" {
		w.Header().Set("Retry-After", ae.RetryAfter)
	}
	if ae.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="sandbox", error="invalid_token"`)
	}
	writeJSON(w, ae.Status, ae)
}

// maxJSONBody bounds API request bodies.
const maxJSONBody = 1 << 20

// readJSON decodes an API request body into generic JSON with numbers kept
// as json.Number. The body must be a JSON object sent as application/json.
func readJSON(w http.ResponseWriter, r *http.Request) (map[string]any, error) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return nil, newError(http.StatusUnsupportedMediaType, "Content-Type must be application/json")
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxJSONBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, newError(http.StatusRequestEntityTooLarge, "request body is larger than %d bytes", maxJSONBody)
		}
		return nil, newError(http.StatusBadRequest, "could not read the request body")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, newError(http.StatusBadRequest, "body is not valid JSON: %v", err)
	}
	if dec.More() {
		return nil, newError(http.StatusBadRequest, "body must hold one JSON object")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, newError(http.StatusBadRequest, "body must be a JSON object")
	}
	return m, nil
}
