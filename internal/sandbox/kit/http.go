package kit

import (
	"crypto/subtle"
	"net/http"
	"net/url"
	"strings"
)

// SecurityHeaders sets the headers every sandbox answer carries, as the
// portal's pages do: a strict Content-Security-Policy (no inline script,
// never framed), nosniff and a same-origin referrer policy. The merchant
// pages hold a tick-box and an accept button that no other site may frame.
func SecurityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
			"form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin")
		next.ServeHTTP(w, r)
	})
}

// AdminGuard guards the admin surface with one token, sent as a bearer
// token or as the password of basic auth (any user name), so that a browser
// can sign in. With an empty token the admin surface does not exist (404).
type AdminGuard string

// Wrap guards next.
func (g AdminGuard) Wrap(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if g == "" {
			http.NotFound(w, r)
			return
		}
		given := BearerToken(r)
		if _, pw, ok := r.BasicAuth(); ok {
			given = pw
		}
		if subtle.ConstantTimeCompare([]byte(given), []byte(g)) != 1 {
			w.Header().Set("WWW-Authenticate", `Basic realm="sandbox admin"`)
			http.Error(w, "admin token required", http.StatusUnauthorized)
			return
		}
		// The admin pages' forms are bounded as every body is (MaxBody).
		r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
		next(w, r)
	}
}

// SameOrigin refuses a cross-site form post: the admin and merchant pages
// carry no CSRF token, and browsers say where a post comes from
// (Sec-Fetch-Site, Origin). publicURL, when it returns a URL, is accepted as
// an origin beside the request's own host (the sandbox behind a proxy).
func SameOrigin(publicURL func() string, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
			http.Error(w, "cross-site form posts are refused", http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && o != "null" {
			u, err := url.Parse(o)
			var public *url.URL
			if publicURL != nil {
				public, _ = url.Parse(publicURL())
			}
			if err != nil || (u.Host != r.Host && (public == nil || u.Host != public.Host)) {
				http.Error(w, "cross-site form posts are refused", http.StatusForbidden)
				return
			}
		}
		next(w, r)
	}
}

// BearerToken returns the token of an "Authorization: Bearer" header.
func BearerToken(r *http.Request) string {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(tok)
}

// StatusRecorder remembers the status an answer was written with.
type StatusRecorder struct {
	http.ResponseWriter
	Status int
}

// WriteHeader records code and passes it on.
func (r *StatusRecorder) WriteHeader(code int) {
	r.Status = code
	r.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (r *StatusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
