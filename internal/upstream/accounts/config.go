package accounts

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/payportal/portal/internal/upstream/transport"
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

// defaults are the Default values above, for the transport.
func defaults() transport.Defaults {
	return transport.Defaults{Timeout: DefaultTimeout, MaxAttempts: DefaultMaxAttempts,
		RetryBaseDelay: DefaultRetryBaseDelay, RetryMaxDelay: DefaultRetryMaxDelay, MaxRetryAfter: DefaultMaxRetryAfter,
		IdleConnsPerHost: DefaultIdleConnsPerHost, UserAgent: "payportal-upstream/1"}
}

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

// withDefaults checks the credentials, fills the zero values and builds
// the transport that makes the calls.
func (c Config) withDefaults() (Config, *transport.Client, error) {
	if c.Now == nil {
		c.Now = time.Now
	}
	t, err := transport.New(transport.Config{
		Name: "upstream", BaseURL: c.BaseURL, Timeout: c.Timeout, MaxAttempts: c.MaxAttempts,
		RetryBaseDelay: c.RetryBaseDelay, RetryMaxDelay: c.RetryMaxDelay, MaxRetryAfter: c.MaxRetryAfter,
		HTTPClient: c.HTTPClient, Logger: c.Logger, Now: c.Now, Sleep: c.Sleep, UserAgent: c.UserAgent,
	}, defaults())
	if err != nil {
		return c, nil, err
	}
	keyed := c.APIKey != "" || c.APISecret != ""
	switch {
	case c.Token != "" && keyed:
		return c, nil, errors.New("upstream: give either a token or an API key and secret, not both")
	case c.Token == "" && !keyed:
		return c, nil, errors.New("upstream: no credentials: give a token or an API key and secret")
	case keyed && (c.APIKey == "" || c.APISecret == ""):
		return c, nil, errors.New("upstream: an API key needs its secret, and a secret its key")
	case c.UploadTimeout < 0:
		return c, nil, errors.New("upstream: timeouts, delays and attempts must not be negative")
	}
	c.UploadTimeout = cmp.Or(c.UploadTimeout, DefaultUploadTimeout)
	return c, t, nil
}
