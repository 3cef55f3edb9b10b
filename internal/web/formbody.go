package web

import (
	"errors"
	"mime"
	"net/http"

	"github.com/labstack/echo/v4"
)

// maxFormBytes bounds a url-encoded form. The largest the pages send is a section of an
// application (the notes hold up to 20,000 characters, a few bytes each once encoded);
// 2 MiB leaves room for a value far past any field's bound to be refused beside its field,
// and keeps a request from holding more than that in memory (net/http's own limit is 10 MB).
const maxFormBytes = 2 << 20

// formBody reads a url-encoded body at once, capped at maxFormBytes: a larger one gets 413
// and a malformed one (a broken percent escape) 400, both with a message, before the CSRF
// check could mistake them for a missing token. Multipart bodies are left to the upload
// reader, which streams them.
func formBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		switch req.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			return next(c)
		}
		if ct, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type")); ct != "application/x-www-form-urlencoded" {
			return next(c)
		}
		req.Body = http.MaxBytesReader(c.Response(), req.Body, maxFormBytes)
		if err := req.ParseForm(); err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				return echo.NewHTTPError(http.StatusRequestEntityTooLarge, "The form is larger than the portal accepts (2 MiB); shorten what you typed.")
			}
			return echo.NewHTTPError(http.StatusBadRequest, "The form could not be read; reload the page and try again.")
		}
		return next(c)
	}
}
