package accounts

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"reflect"
	"strings"
)

// apiRoute wraps an API endpoint: injected faults first (as a load balancer
// in front of the upstream would fail), then the bearer token when
// authenticated is true, then the endpoint, whose error becomes the answer.
func (s *Server) apiRoute(h apiHandler, authenticated bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.apiFault(w, r) {
			return
		}
		if authenticated && !s.validToken(bearerToken(r)) {
			writeAPIError(w, newError(http.StatusUnauthorized, "missing, invalid or expired access token"))
			return
		}
		if err := h(w, r); err != nil {
			if _, ok := err.(*apiError); !ok {
				s.log.Error("sandbox endpoint failed", "path", r.URL.Path, "err", err)
			}
			writeAPIError(w, err)
		}
	})
}

// bearerToken returns the token of an "Authorization: Bearer" header.
func bearerToken(r *http.Request) string {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(tok)
}

// validToken accepts a configured long-lived token or an unexpired token
// issued by /auth.
func (s *Server) validToken(tok string) bool {
	if tok == "" {
		return false
	}
	for _, t := range s.opts.Tokens {
		if subtle.ConstantTimeCompare([]byte(t), []byte(tok)) == 1 {
			return true
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	exp, ok := s.tokens[tok]
	return ok && s.opts.Clock.Now().Before(exp)
}

// handleAuth exchanges an API key and secret for an access token that lives
// TokenLifetime (24 h by default).
func (s *Server) handleAuth(w http.ResponseWriter, r *http.Request) error {
	body, err := readJSON(w, r)
	if err != nil {
		return err
	}
	if err := (shapeChecker{}).check(body, reflect.TypeFor[authBody](), ""); err != nil {
		return err
	}
	key, _ := body["apiKey"].(string)
	secret, _ := body["secret"].(string)
	switch {
	case key == "":
		return fieldError("apiKey", "is required")
	case secret == "":
		return fieldError("secret", "is required")
	}
	want, ok := s.opts.APIKeys[key]
	if !ok || subtle.ConstantTimeCompare([]byte(want), []byte(secret)) != 1 {
		return newError(http.StatusUnauthorized, "invalid apiKey or secret")
	}
	raw := make([]byte, 32)
	_, _ = rand.Read(raw)
	tok := "sbx_" + base64.RawURLEncoding.EncodeToString(raw)
	s.mu.Lock()
	s.tokens[tok] = s.opts.Clock.Now().Add(s.opts.TokenLifetime)
	s.tokensIssued++
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]string{"AccessToken": tok})
	return nil
}

// TokensIssued returns how many tokens POST /auth has issued.
func (s *Server) TokensIssued() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tokensIssued
}

// RevokeIssuedTokens forgets every token issued by /auth, so the next call
// with one of them gets 401. Long-lived tokens stay valid.
func (s *Server) RevokeIssuedTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.tokens)
}
