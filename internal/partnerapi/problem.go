package partnerapi

import (
	"cmp"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/apperr"
)

// Problem is an error answer of the API: RFC 9457's problem details, with a stable
// code and, for refused input, one entry per value at fault.
type Problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail,omitempty"`
	// Code names the kind of problem for programs ("validation_failed", "not_found", ...).
	Code string `json:"code"`
	// RequestID is the request's X-Request-Id, for support.
	RequestID string `json:"requestId,omitempty"`
	// Errors lists each refused value: a JSON pointer into the request and the message
	// the portal's pages show for it.
	Errors []FieldProblem `json:"errors,omitempty"`
	// retryAfter, when set, is sent as Retry-After (seconds).
	retryAfter int
}

// FieldProblem is one refused value of a request: a JSON pointer into its body, or the
// name of a query parameter.
type FieldProblem struct {
	Pointer   string `json:"pointer,omitempty"`
	Parameter string `json:"parameter,omitempty"`
	Detail    string `json:"detail"`
}

// Error is the problem's detail, for logs.
func (p *Problem) Error() string { return p.Code + ": " + p.Detail }

// ProblemContentType is the media type of problem details (RFC 9457).
const ProblemContentType = "application/problem+json"

// The codes of problems.
const (
	CodeMalformed           = "malformed_request"
	CodeValidation          = "validation_failed"
	CodeUnauthenticated     = "unauthenticated"
	CodeForbidden           = "forbidden"
	CodeNotFound            = "not_found"
	CodeConflict            = "conflict"
	CodeTooLarge            = "request_too_large"
	CodeUnsupportedMedia    = "unsupported_media_type"
	CodeMethodNotAllowed    = "method_not_allowed"
	CodePreconditionNeeded  = "precondition_required"
	CodePreconditionFailed  = "precondition_failed"
	CodeIdempotencyMismatch = "idempotency_key_reused"
	CodeIdempotencyInFlight = "idempotency_key_in_flight"
	CodeRateLimited         = "rate_limited"
	CodeUnavailable         = "unavailable"
	CodeInternal            = "internal_error"
)

// problem returns a problem of status with a detail for people.
func problem(status int, code, detail string) *Problem {
	return &Problem{Type: "about:blank", Title: http.StatusText(status), Status: status, Code: code, Detail: detail}
}

// invalid is a 422 listing refused values by JSON pointer.
func invalid(fields map[string]string) *Problem {
	p := problem(http.StatusUnprocessableEntity, CodeValidation, "Some values were refused; each is listed in errors with the reason.")
	for ptr, msg := range fields {
		p.Errors = append(p.Errors, FieldProblem{Pointer: ptr, Detail: msg})
	}
	sortProblems(p.Errors)
	return p
}

func sortProblems(list []FieldProblem) {
	slices.SortFunc(list, func(a, b FieldProblem) int {
		return cmp.Or(cmp.Compare(a.Pointer, b.Pointer), cmp.Compare(a.Parameter, b.Parameter))
	})
}

// codeOf is the code of a status the error handler chose.
func codeOf(status int) string {
	switch status {
	case http.StatusBadRequest:
		return CodeMalformed
	case http.StatusUnauthorized:
		return CodeUnauthenticated
	case http.StatusForbidden:
		return CodeForbidden
	case http.StatusNotFound:
		return CodeNotFound
	case http.StatusMethodNotAllowed:
		return CodeMethodNotAllowed
	case http.StatusConflict:
		return CodeConflict
	case http.StatusRequestEntityTooLarge:
		return CodeTooLarge
	case http.StatusUnsupportedMediaType:
		return CodeUnsupportedMedia
	case http.StatusUnprocessableEntity:
		return CodeValidation
	case http.StatusTooManyRequests:
		return CodeRateLimited
	case http.StatusServiceUnavailable:
		return CodeUnavailable
	}
	return CodeInternal
}

// fieldNames maps the form field names of rooms other than the drafts to the API's.
var fieldNames = map[string]string{"doc_type": "/type", "file": "/file"}

// ProblemOf turns an error the one error handler classified (status and message for
// people) into the API's problem: a *Problem passes as it is; a validation error lists
// its fields by JSON pointer, with the messages the pages show.
func ProblemOf(err error, status int, message string) *Problem {
	var p *Problem
	if errors.As(err, &p) {
		return p
	}
	if fields, ok := apperr.FieldsOf(err); ok {
		byPointer := make(map[string]string, len(fields))
		for name, msg := range fields {
			ptr, known := fieldNames[name]
			if !known {
				ptr = pointerOf(name)
			}
			byPointer[ptr] = msg
		}
		return invalid(byPointer)
	}
	if message == "" {
		message = defaultDetail(status)
	}
	return problem(status, codeOf(status), message)
}

// defaultDetail says what a bare status means.
func defaultDetail(status int) string {
	switch status {
	case http.StatusNotFound:
		return "There is no such object, or the key may not see it."
	case http.StatusMethodNotAllowed:
		return "This method is not offered on this path."
	case http.StatusInternalServerError:
		return "Something went wrong on our side; the request id helps us find it."
	}
	return http.StatusText(status) + "."
}

// WriteProblem answers p as application/problem+json.
func WriteProblem(c echo.Context, p *Problem) error {
	h := c.Response().Header()
	if p.RequestID == "" {
		p.RequestID = h.Get(echo.HeaderXRequestID)
	}
	if p.retryAfter > 0 {
		h.Set("Retry-After", itoa(p.retryAfter))
	}
	if p.Status == http.StatusUnauthorized {
		h.Set("WWW-Authenticate", `Bearer realm="api"`)
	}
	h.Set(echo.HeaderContentType, ProblemContentType)
	h.Set("Cache-Control", "no-store")
	c.Response().WriteHeader(p.Status)
	return jsonEncode(c.Response(), p)
}

// IsAPIPath reports whether a request's path belongs to the API (its errors are
// problem documents, never pages).
func IsAPIPath(path string) bool { return path == "/api" || strings.HasPrefix(path, "/api/") }
