package web

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/httpx"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/view"
)

type errorPage struct {
	Status  int
	Heading string
	Message string
}

// errorHandler is the one place where errors become responses. Domain errors
// carry a safe message; anything else is logged and shown as a bare 500.
func errorHandler(views *view.Renderer, log *slog.Logger) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		if c.Response().Committed {
			return
		}
		status, message := classify(err)
		if status >= 500 {
			log.Error("request failed", "request_id", c.Response().Header().Get(echo.HeaderXRequestID),
				"method", c.Request().Method, "route", c.Path(), "err", err)
		}
		if httpx.IsHTMX(c) || wantsJSON(c) {
			if status == http.StatusNotFound && message == "" {
				message = "Not found."
			}
			if wantsJSON(c) {
				_ = c.JSON(status, map[string]string{"message": fallback(message, http.StatusText(status))})
				return
			}
			_ = c.String(status, fallback(message, http.StatusText(status)))
			return
		}
		page := errorPage{Status: status, Heading: http.StatusText(status), Message: message}
		if rerr := views.Page(c, status, "errors/error", http.StatusText(status), page); rerr != nil {
			log.Error("render error page", "err", rerr)
			_ = c.String(status, http.StatusText(status))
		}
	}
}

func classify(err error) (int, string) {
	var he *echo.HTTPError
	if errors.As(err, &he) {
		msg, _ := he.Message.(string)
		if msg == http.StatusText(he.Code) {
			msg = ""
		}
		return he.Code, msg
	}
	if errors.Is(err, models.ErrNotFound) {
		return http.StatusNotFound, ""
	}
	switch apperr.KindOf(err) {
	case apperr.KindInvalid:
		return http.StatusUnprocessableEntity, apperr.MessageOf(err)
	case apperr.KindNotFound:
		return http.StatusNotFound, apperr.MessageOf(err)
	case apperr.KindForbidden:
		return http.StatusForbidden, apperr.MessageOf(err)
	case apperr.KindConflict:
		return http.StatusConflict, apperr.MessageOf(err)
	case apperr.KindTooMany:
		return http.StatusTooManyRequests, apperr.MessageOf(err)
	case apperr.KindUnavailable:
		return http.StatusServiceUnavailable, apperr.MessageOf(err)
	}
	return http.StatusInternalServerError, ""
}

func wantsJSON(c echo.Context) bool {
	return c.Request().Header.Get("Accept") == "application/json"
}

func fallback(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
