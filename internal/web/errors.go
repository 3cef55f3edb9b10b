package web

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/httpx"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/partnerapi"
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
		if partnerapi.IsAPIPath(c.Request().URL.Path) {
			apiError(c, err, log)
			return
		}
		status, message := classify(err)
		if status == http.StatusBadRequest && refusedByDatabase(err) {
			// Validation should have refused this input before the database did: note it.
			log.Warn("input refused by the database", "request_id", c.Response().Header().Get(echo.HeaderXRequestID),
				"method", c.Request().Method, "route", c.Path(), "err", err)
		}
		if status >= 500 {
			log.Error("request failed", "request_id", c.Response().Header().Get(echo.HeaderXRequestID),
				"method", c.Request().Method, "route", c.Path(), "err", err)
		}
		if httpx.IsHTMX(c) || wantsJSON(c) {
			if status == http.StatusNotFound && message == "" {
				message = "Not found."
			}
			// A message may name a time (LocalClock): written in the viewer's zone here,
			// since no page is rendered around it.
			message = views.Localize(c, message)
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
	case apperr.KindMalformed:
		return http.StatusBadRequest, apperr.MessageOf(err)
	}
	if refusedByDatabase(err) {
		return http.StatusBadRequest, msgNotStorable
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

// msgNotStorable answers input that slipped past validation and that the database refused.
const msgNotStorable = "Some of what was sent cannot be stored: a value is too long, out of range, or holds characters that are not text. Check what you typed and try again."

// refusedByDatabase reports a database error caused by the values sent rather than by the
// database: a data exception (class 22: invalid text, a NUL byte, a number or date out of
// range, a value too long) or an index row too large (54000). Every form validates before
// this can happen; this is the net under it, so that bad input is never a 500.
func refusedByDatabase(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	return strings.HasPrefix(pgErr.Code, "22") || pgErr.Code == "54000"
}

// apiError answers an error of the partner API as a problem document (RFC 9457), with
// the same classification as the pages: never a page, never a bare 500 for bad input.
func apiError(c echo.Context, err error, log *slog.Logger) {
	status, message := classify(err)
	p := partnerapi.ProblemOf(err, status, message)
	if p.Status >= 500 {
		log.Error("API request failed", "request_id", c.Response().Header().Get(echo.HeaderXRequestID),
			"method", c.Request().Method, "route", c.Path(), "err", err)
	}
	if err := partnerapi.WriteProblem(c, p); err != nil {
		log.Warn("API problem not written", "err", err)
	}
}
