package accounts

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Defaults of Config.
const (
	DefaultTimeout        = 30 * time.Second
	DefaultUploadTimeout  = 15 * time.Minute
	DefaultMaxAttempts    = 4
	DefaultRetryBaseDelay = 250 * time.Millisecond
	DefaultRetryMaxDelay  = 5 * time.Second
	DefaultMaxRetryAfter  = 30 * time.Second
	// DefaultIdleConnsPerHost is how many idle connections the default HTTP
	// client keeps to each host (the API's, the presigned URLs').
	DefaultIdleConnsPerHost = 128
)

// Config configures a Client. Give either Token, or APIKey and APISecret.
type Config struct {
	// BaseURL is the API's base address; it ends with the version segment,
	// e.g. https://upstream.example/v2.
	BaseURL string
	// Token is a long-lived bearer token issued by the operator.
	Token string
	// APIKey and APISecret are exchanged at POST /auth for a token that
	// lives 24 hours; the client refreshes it an hour before it expires and
	// once when a call answers 401.
	APIKey, APISecret string
	// Timeout bounds each attempt of an API call. Default 30 s.
	Timeout time.Duration
	// UploadTimeout bounds each attempt of an upload to a presigned URL.
	// Default 15 min.
	UploadTimeout time.Duration
	// MaxAttempts bounds the attempts of one call, the first included.
	// Default 4; 1 turns retries off.
	MaxAttempts int
	// RetryBaseDelay is the backoff before the second attempt; it doubles
	// for each further one, up to RetryMaxDelay, with jitter. Defaults
	// 250 ms and 5 s.
	RetryBaseDelay, RetryMaxDelay time.Duration
	// MaxRetryAfter caps the wait a 429 or 503 asks for with Retry-After.
	// Default 30 s.
	MaxRetryAfter time.Duration
	// HTTPClient sends the requests. Default: a client of its own with
	// no overall timeout (each attempt has one), keeping up to
	// DefaultIdleConnsPerHost connections open to each host.
	HTTPClient *http.Client
	// Logger receives one line per attempt: method, path, status, duration.
	// Never a token or a body. Default: discard.
	Logger *slog.Logger
	// Now tells the time, for token expiry and URL expiry. Default time.Now.
	Now func() time.Time
	// Sleep waits between attempts. Default: a timer that stops when ctx
	// ends. Tests replace it to record the waits instead of sleeping.
	Sleep func(ctx context.Context, d time.Duration) error
	// UserAgent is sent with every request. Default "payportal-upstream/1".
	UserAgent string
}

// withDefaults fills the zero values and checks the rest.
func (c Config) withDefaults() (Config, error) {
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return c, fmt.Errorf("upstream: base URL %q is not an absolute http(s) URL", c.BaseURL)
	}
	c.BaseURL = strings.TrimSuffix(c.BaseURL, "/")
	keyed := c.APIKey != "" || c.APISecret != ""
	switch {
	case c.Token != "" && keyed:
		return c, errors.New("upstream: give either a token or an API key and secret, not both")
	case c.Token == "" && !keyed:
		return c, errors.New("upstream: no credentials: give a token or an API key and secret")
	case keyed && (c.APIKey == "" || c.APISecret == ""):
		return c, errors.New("upstream: an API key needs its secret, and a secret its key")
	case c.Timeout < 0 || c.UploadTimeout < 0 || c.MaxAttempts < 0 ||
		c.RetryBaseDelay < 0 || c.RetryMaxDelay < 0 || c.MaxRetryAfter < 0:
		return c, errors.New("upstream: timeouts, delays and attempts must not be negative")
	}
	c.Timeout = or(c.Timeout, DefaultTimeout)
	c.UploadTimeout = or(c.UploadTimeout, DefaultUploadTimeout)
	c.MaxAttempts = or(c.MaxAttempts, DefaultMaxAttempts)
	c.RetryBaseDelay = or(c.RetryBaseDelay, DefaultRetryBaseDelay)
	c.RetryMaxDelay = max(or(c.RetryMaxDelay, DefaultRetryMaxDelay), c.RetryBaseDelay)
	c.MaxRetryAfter = or(c.MaxRetryAfter, DefaultMaxRetryAfter)
	if c.HTTPClient == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		// Pushes send many requests at once (each with its documents): net/http's
		// default of two idle connections per host would close the rest after each
		// burst and open (and, over TLS, handshake) them again for the next.
		t.MaxIdleConns, t.MaxIdleConnsPerHost = 2*DefaultIdleConnsPerHost, DefaultIdleConnsPerHost
		c.HTTPClient = &http.Client{Transport: t}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Sleep == nil {
		c.Sleep = sleep
	}
	if c.UserAgent == "" {
		c.UserAgent = "payportal-upstream/1"
	}
	return c, nil
}

// or returns v, or def when v is the zero value.
func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
