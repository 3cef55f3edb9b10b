package partnerapi

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
)

func itoa(n int) string { return strconv.Itoa(n) }

// jsonEncode writes v as JSON without HTML escaping (the API's answers are not pages).
func jsonEncode(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// ok answers v as JSON with status.
func ok(c echo.Context, status int, v any) error {
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	h.Set("Cache-Control", "no-store")
	c.Response().WriteHeader(status)
	return jsonEncode(c.Response(), v)
}

// ts is a time as the API writes it: RFC 3339 in UTC, to the second.
func ts(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// tsp is ts of an optional time; nil stays null.
func tsp(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := ts(*t)
	return &s
}

// noContent answers 204.
func noContent(c echo.Context) error { return c.NoContent(http.StatusNoContent) }

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
