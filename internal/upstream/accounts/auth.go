package accounts

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// Token lifetimes: the upstream's tokens from /auth live 24 hours; the
// client treats them as stale an hour early, so a call never starts with a
// token about to lapse (and clocks may disagree a little).
const (
	tokenLifetime = 24 * time.Hour
	refreshMargin = time.Hour
)

// tokenSource hands out the bearer token: a fixed one, or one exchanged for
// the API key and secret and kept until it is stale or refused.
type tokenSource struct {
	static   string
	now      func() time.Time
	exchange func(ctx context.Context) (string, error)

	// mu is held during an exchange, so concurrent calls wait for one
	// exchange instead of each making their own.
	mu      sync.Mutex
	current string
	fetched time.Time
}

// refreshable reports whether a refused token can be replaced.
func (t *tokenSource) refreshable() bool { return t.static == "" }

// get returns a token that is fresh enough, exchanging when needed.
func (t *tokenSource) get(ctx context.Context) (string, error) {
	if t.static != "" {
		return t.static, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.current != "" && t.now().Before(t.fetched.Add(tokenLifetime-refreshMargin)) {
		return t.current, nil
	}
	fetched := t.now()
	tok, err := t.exchange(ctx)
	if err != nil {
		return "", err
	}
	t.current, t.fetched = tok, fetched
	return tok, nil
}

// invalidate drops tok if it is still the current token; a token that
// another call has already replaced stays replaced.
func (t *tokenSource) invalidate(tok string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.current == tok {
		t.current = ""
	}
}

// reset forgets the current token.
func (t *tokenSource) reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.current = ""
}

// Authenticate exchanges the API key and secret for a fresh token now, so
// wrong credentials show at start-up rather than at the first call. With a
// fixed token it does nothing: the upstream has no call to check one.
func (c *Client) Authenticate(ctx context.Context) error {
	if !c.tokens.refreshable() {
		return nil
	}
	c.tokens.reset()
	_, err := c.tokens.get(ctx)
	return err
}

// authRequest is the body of POST /auth.
type authRequest struct {
	APIKey string `json:"apiKey"`
	Secret string `json:"secret"`
}

// exchange makes the POST /auth call.
func (c *Client) exchange(ctx context.Context) (string, error) {
	var out struct {
		AccessToken string `json:"AccessToken"`
	}
	err := c.do(ctx, call{
		method: http.MethodPost, path: "/auth", noAuth: true, policy: retrySafe,
		body: authRequest{APIKey: c.cfg.APIKey, Secret: c.cfg.APISecret}, out: &out,
	})
	if err != nil {
		return "", err
	}
	if out.AccessToken == "" {
		return "", &Error{Method: http.MethodPost, Path: "/auth", StatusCode: http.StatusOK, Message: "answer holds no AccessToken"}
	}
	return out.AccessToken, nil
}
