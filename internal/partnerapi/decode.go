package partnerapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
)

// maxJSONBytes bounds a JSON request body: an application with ten owners is a few
// kilobytes.
const maxJSONBytes = 256 << 10

// readObject reads a request's JSON object, refusing another media type, a body too
// large, JSON that does not parse, anything after the object, and a value that is not
// an object. mediaTypes are the accepted types (application/json when none).
func readObject(c echo.Context, mediaTypes ...string) (map[string]any, error) {
	if len(mediaTypes) == 0 {
		mediaTypes = []string{echo.MIMEApplicationJSON}
	}
	if err := checkMediaType(c.Request(), mediaTypes); err != nil {
		return nil, err
	}
	body, err := io.ReadAll(http.MaxBytesReader(c.Response(), c.Request().Body, maxJSONBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, problem(http.StatusRequestEntityTooLarge, CodeTooLarge, "The body is larger than 256 KiB.")
	}
	if err != nil {
		return nil, problem(http.StatusBadRequest, CodeMalformed, "The body could not be read.")
	}
	return parseObject(body)
}

// parseObject parses a JSON object, keeping numbers as written. JSON is UTF-8: a body
// that is not is refused rather than read with replacement characters.
func parseObject(body []byte) (map[string]any, error) {
	if !utf8.Valid(body) {
		return nil, problem(http.StatusBadRequest, CodeMalformed, "The body is not valid UTF-8.")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, problem(http.StatusBadRequest, CodeMalformed, "The body is not valid JSON: "+jsonErrorText(err))
	}
	if dec.More() || trailing(dec) {
		return nil, problem(http.StatusBadRequest, CodeMalformed, "The body holds more than one JSON value.")
	}
	obj, isObject := v.(map[string]any)
	if !isObject {
		return nil, problem(http.StatusBadRequest, CodeMalformed, "The body must be a JSON object.")
	}
	return obj, nil
}

// trailing reports anything but white space after the first value.
func trailing(dec *json.Decoder) bool {
	rest, _ := io.ReadAll(dec.Buffered())
	return len(bytes.TrimSpace(rest)) > 0
}

// jsonErrorText words a decoding error without echoing the input.
func jsonErrorText(err error) string {
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return syntax.Error() + " (at byte " + itoa(int(syntax.Offset)) + ")."
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "it ends too soon."
	}
	return "it cannot be read."
}

// checkMediaType refuses a body of another media type than those accepted.
func checkMediaType(r *http.Request, accepted []string) error {
	mt, _, err := mime.ParseMediaType(r.Header.Get(echo.HeaderContentType))
	if err == nil {
		for _, a := range accepted {
			if strings.EqualFold(mt, a) {
				return nil
			}
		}
	}
	return problem(http.StatusUnsupportedMediaType, CodeUnsupportedMedia, "Send the body as "+strings.Join(accepted, " or ")+".")
}
