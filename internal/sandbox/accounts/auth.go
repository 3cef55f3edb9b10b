package accounts

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"reflect"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// apiRoute wraps an API endpoint: injected faults first (as a load balancer
// in front of the upstream would fail), then the bearer token when
// authenticated is true, then the endpoint, whose error becomes the answer.
// Under "act, then drop" the endpoint acts and the connection is closed
// before its answer.
func (s *Server) apiRoute(h apiHandler, authenticated bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w, dropAfter, answered := s.apiFault(w, r)
		if answered {
			return
		}
		if dropAfter != nil {
			defer dropAfter()
		}
		if authenticated && !s.validToken(kit.BearerToken(r)) {
			writeAPIError(w, kit.NewError(http.StatusUnauthorized, "missing, invalid or expired access token"))
			return
		}
		if err := h(w, r); err != nil {
			var refusal *kit.APIError
			if !errors.As(err, &refusal) {
				s.log.Error("sandbox endpoint failed", "path", r.URL.Path, "err", err)
			}
			writeAPIError(w, err)
		}
	})
}

// tokenKey is what the store keeps of a token from /auth: its SHA-256, so
// the state file holds no usable token.
func tokenKey(tok string) string {
	sum := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(sum[:])
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
	var exp time.Time
	err := s.view(func(tx *bolt.Tx) error { return kit.Get(tx, bTokens, tokenKey(tok), &exp) })
	return err == nil && s.env.Clock.Now().Before(exp)
}

// handleAuth exchanges an API key and secret for an access token that lives
// TokenLifetime (24 h by default).
func (s *Server) handleAuth(w http.ResponseWriter, r *http.Request) error {
	body, err := kit.ReadObject(w, r)
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
		return kit.FieldError("apiKey", "is required")
	case secret == "":
		return kit.FieldError("secret", "is required")
	}
	want, ok := s.opts.APIKeys[key]
	if !ok || subtle.ConstantTimeCompare([]byte(want), []byte(secret)) != 1 {
		return kit.NewError(http.StatusUnauthorized, "invalid apiKey or secret")
	}
	raw := make([]byte, 32)
	_, _ = rand.Read(raw)
	tok := "sbx_" + base64.RawURLEncoding.EncodeToString(raw)
	err = s.update(func(c *change) error {
		if err := kit.Put(c.tx, bTokens, tokenKey(tok), c.now.Add(s.opts.TokenLifetime)); err != nil {
			return err
		}
		return addMetaInt(c.tx, "tokensIssued", 1)
	})
	if err != nil {
		return err
	}
	kit.WriteJSON(w, http.StatusOK, map[string]string{"AccessToken": tok})
	return nil
}

// TokensIssued returns how many tokens POST /auth has issued.
func (s *Server) TokensIssued() int {
	var n int
	_ = s.view(func(tx *bolt.Tx) error { n = metaInt(tx, "tokensIssued"); return nil })
	return n
}

// RevokeIssuedTokens forgets every token issued by /auth, so the next call
// with one of them gets 401. Long-lived tokens stay valid.
func (s *Server) RevokeIssuedTokens() {
	_ = s.update(func(c *change) error {
		if err := c.tx.DeleteBucket([]byte(bTokens)); err != nil {
			return err
		}
		_, err := c.tx.CreateBucket([]byte(bTokens))
		return err
	})
}
