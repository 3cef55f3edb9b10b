package kit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"
)

// MaxBody is the largest request body the sandbox reads, in every area:
// JSON bodies of the APIs and the admin APIs (Body.Read), form posts of the
// merchant and admin pages (AdminGuard, and each area's form reader). Only
// an upload to the object store is larger, bounded by the size it was
// signed for. The largest legitimate body (an application's data with ten
// owners) is a few kilobytes; a larger one is refused with 413 before it is
// decoded, in the area's error shape.
const MaxBody = 1 << 20

// BodyError is a request body refused before the area reads it as its
// request: 400 (not JSON, not one object, a wrong type, an unknown field),
// 413 (over MaxBody) or 415 (not sent as JSON). Its Message is the
// sandbox's own, stable wording: it never quotes Go's decoder, whose
// messages change between versions and can echo the caller's bytes (a card
// number). Each area writes it in its own error shape.
type BodyError struct {
	Status  int
	Message string
}

// Error returns the message.
func (e *BodyError) Error() string { return e.Message }

// TypeRule says which Content-Type a body must be sent with.
type TypeRule int

const (
	// AnyType reads the body whatever its Content-Type: the admin APIs,
	// which curl -d posts as a form.
	AnyType TypeRule = iota
	// JSONType needs application/json (415 otherwise): the account and
	// payment APIs.
	JSONType
	// JSONTypeIfSent accepts a missing Content-Type, application/json and
	// text/json, as the lenient .NET terminal cloud does.
	JSONTypeIfSent
)

// Body is how an endpoint reads its JSON body.
type Body struct {
	Type TypeRule
	// Strict refuses a member the target does not have (400 naming it).
	Strict bool
	// MayBeEmpty reads an empty body as no members at all.
	MayBeEmpty bool
}

// Read reads r's body, at most MaxBody bytes, as exactly one JSON value
// into v, numbers into interface values as json.Number. A target of type
// *map[string]any must receive an object. A refusal is a *BodyError.
func (b Body) Read(w http.ResponseWriter, r *http.Request, v any) error {
	raw, err := b.Bytes(w, r)
	if err != nil {
		return err
	}
	return b.Decode(raw, v)
}

// Bytes checks r's Content-Type and reads its body, at most MaxBody
// bytes, for an endpoint that looks at it before it decodes it.
func (b Body) Bytes(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if err := b.checkType(r.Header.Get("Content-Type")); err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return nil, &BodyError{http.StatusRequestEntityTooLarge, fmt.Sprintf("the request body is larger than %d bytes (1 MiB)", MaxBody)}
	case err != nil:
		return nil, &BodyError{http.StatusBadRequest, "the request body could not be read"}
	}
	return raw, nil
}

// Decode reads raw as exactly one JSON value into v, by b's rules.
func (b Body) Decode(raw []byte, v any) error {
	if b.MayBeEmpty && len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if b.Strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	if dec.More() {
		return &BodyError{http.StatusBadRequest, "the request body must hold one JSON object"}
	}
	if m, ok := v.(*map[string]any); ok && *m == nil {
		return &BodyError{http.StatusBadRequest, "the request body must be a JSON object"}
	}
	return nil
}

// checkType applies the TypeRule to a Content-Type header.
func (b Body) checkType(contentType string) *BodyError {
	if b.Type == AnyType || (b.Type == JSONTypeIfSent && contentType == "") {
		return nil
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err == nil && (mt == "application/json" || (b.Type == JSONTypeIfSent && mt == "text/json")) {
		return nil
	}
	return &BodyError{http.StatusUnsupportedMediaType, "Content-Type must be application/json"}
}

// decodeError words a decoding failure in the sandbox's own terms: where,
// never what the caller sent.
func decodeError(err error) *BodyError {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return &BodyError{http.StatusBadRequest, "the request body is empty: send a JSON object"}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &BodyError{http.StatusBadRequest, "the request body is not valid JSON: it ends too soon"}
	case errors.As(err, &syntax):
		return &BodyError{http.StatusBadRequest, fmt.Sprintf("the request body is not valid JSON (at byte %d)", syntax.Offset)}
	case errors.As(err, &typ) && typ.Field == "":
		return &BodyError{http.StatusBadRequest, "the request body must be a JSON " + jsonKind(typ.Type)}
	case errors.As(err, &typ):
		return &BodyError{http.StatusBadRequest, typ.Field + ": must be a JSON " + jsonKind(typ.Type)}
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		// A member the caller sent, named (cut short) so they can fix it.
		name = strings.Trim(name, `"`)
		return &BodyError{http.StatusBadRequest, name[:min(len(name), 64)] + ": unknown field"}
	}
	return &BodyError{http.StatusBadRequest, "the request body is not valid JSON"}
}

// jsonKind names the JSON kind a Go type is read from.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "number"
	}
	return "value"
}

// WriteJSON writes v as a JSON answer.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// WriteStoredJSON writes a JSON answer kept as it was first sent (the
// replay of an idempotent request), never cached.
func WriteStoredJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
