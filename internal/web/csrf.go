package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"

	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/auth"
	"github.com/payportal/portal/internal/view"
)

const csrfSessionKey = "csrf_token"

// CSRFFormField and CSRFHeader are where an unsafe request carries its token.
const (
	CSRFFormField = "csrf_token"
	CSRFHeader    = "X-CSRF-Token"
)

// csrfProtect keeps a random token in the session and requires it, in the
// X-CSRF-Token header (htmx) or the csrf_token form field, on every unsafe
// request. A missing or wrong token gets 403 before any handler runs.
//
// A multipart form without the header is parsed to find the field; its body is
// capped at maxMultipart first, so nobody can make the portal spool an
// unbounded upload to disk before any check has run.
//
// An upload over that cap is not read further; when tooLarge knows the form it came from
// (documents.TooLargeRedirect), the browser is sent back to that form's page, which states
// the limit at the field, instead of a bare 413. The redirect changes nothing, so it needs
// no token.
func csrfProtect(sm *scs.SessionManager, maxMultipart int64, tooLargeRedirect func(echo.Context) (string, bool)) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			ctx := req.Context()
			token := sm.GetString(ctx, csrfSessionKey)
			switch req.Method {
			case http.MethodGet, http.MethodHead, http.MethodOptions:
				if token == "" {
					token = newCSRFToken()
					sm.Put(ctx, csrfSessionKey, token)
				}
				view.SetCSRFToken(c, token)
				return next(c)
			}
			sent := req.Header.Get(CSRFHeader)
			if sent == "" {
				if strings.HasPrefix(req.Header.Get("Content-Type"), "multipart/form-data") {
					req.Body = http.MaxBytesReader(c.Response(), req.Body, maxMultipart)
					// Spool large files to disk rather than memory while looking for the field.
					if err := req.ParseMultipartForm(1 << 20); err != nil {
						var tooLarge *http.MaxBytesError
						if errors.As(err, &tooLarge) {
							if tooLargeRedirect != nil {
								if to, ok := tooLargeRedirect(c); ok {
									return c.Redirect(http.StatusSeeOther, to)
								}
							}
							return echo.NewHTTPError(http.StatusRequestEntityTooLarge, "The upload is larger than the limit.")
						}
						return echo.NewHTTPError(http.StatusBadRequest, "The upload is not a complete multipart form; nothing was saved. Try again.")
					}
				}
				sent = req.FormValue(CSRFFormField)
			}
			if token == "" || subtle.ConstantTimeCompare([]byte(sent), []byte(token)) != 1 {
				if req.Header.Get("HX-Request") == "true" && token == "" {
					// The session has ended under an open page: say so without
					// telling the rep to reload, which would lose what they typed.
					return echo.NewHTTPError(http.StatusForbidden, auth.SessionEndedMessage)
				}
				return echo.NewHTTPError(http.StatusForbidden, "This form has expired or did not come from this site. Reload the page and try again.")
			}
			view.SetCSRFToken(c, token)
			return next(c)
		}
	}
}

func newCSRFToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
