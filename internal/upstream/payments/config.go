package payments

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/payportal/portal/internal/upstream/transport"
)

// Defaults of Config.
const (
	DefaultTimeout        = 60 * time.Second
	DefaultMaxAttempts    = 4
	DefaultRetryBaseDelay = 500 * time.Millisecond
	DefaultRetryMaxDelay  = 8 * time.Second
	DefaultMaxRetryAfter  = 30 * time.Second
	// DefaultIdleConnsPerHost is how many idle connections the default HTTP
	// client keeps to the gateway.
	DefaultIdleConnsPerHost = 128
)

// defaults are the Default values above, for the transport.
func defaults() transport.Defaults {
	return transport.Defaults{Timeout: DefaultTimeout, MaxAttempts: DefaultMaxAttempts,
		RetryBaseDelay: DefaultRetryBaseDelay, RetryMaxDelay: DefaultRetryMaxDelay, MaxRetryAfter: DefaultMaxRetryAfter,
		IdleConnsPerHost: DefaultIdleConnsPerHost, UserAgent: "payportal-payments/1"}
}

// Config configures a Client. Credentials are not part of it: every call
// names the merchant Account it acts for.
type Config struct {
	// BaseURL is the environment URL; it ends with /virtualterminal/v1,
	// e.g. https://sandbox.example/virtualterminal/v1.
	BaseURL string
	// AppVersion is sent as the appVersion header, sanitised to the
	// published pattern (see SanitizeAppVersion); empty sends none.
	AppVersion string
	// Timeout bounds each attempt. A payment can take a processor several
	// seconds; an attempt that times out is an unknown outcome, resolved by
	// reading the transaction back. Default 60 s.
	Timeout time.Duration
	// MaxAttempts bounds how often one request is sent (the first
	// included), and separately how often a read-back is tried. Default 4.
	MaxAttempts int
	// RetryBaseDelay is the backoff before the second attempt; it doubles
	// for each further one, up to RetryMaxDelay, with jitter. Defaults
	// 500 ms and 8 s.
	RetryBaseDelay, RetryMaxDelay time.Duration
	// MaxRetryAfter caps the wait a 429 asks for with Retry-After.
	// Default 30 s.
	MaxRetryAfter time.Duration
	// HTTPClient sends the requests. Default: a client of its own with no
	// overall timeout (each attempt has one) that keeps up to
	// DefaultIdleConnsPerHost connections open.
	HTTPClient *http.Client
	// Logger receives one line per attempt: operation, method, path,
	// status, duration. Never a token, a body or card data. Default:
	// discard.
	Logger *slog.Logger
	// Now tells the time, for Retry-After dates. Default time.Now.
	Now func() time.Time
	// Sleep waits between attempts. Default: a timer that stops when ctx
	// ends. Tests replace it to record the waits instead of sleeping.
	Sleep func(ctx context.Context, d time.Duration) error
	// UserAgent is sent with every request. Default "payportal-payments/1".
	UserAgent string
}

// withDefaults fills the zero values and builds the transport that makes
// the calls.
func (c Config) withDefaults() (Config, *transport.Client, error) {
	c.AppVersion = SanitizeAppVersion(c.AppVersion)
	t, err := transport.New(transport.Config{
		Name: "payments", BaseURL: c.BaseURL, Timeout: c.Timeout, MaxAttempts: c.MaxAttempts,
		RetryBaseDelay: c.RetryBaseDelay, RetryMaxDelay: c.RetryMaxDelay, MaxRetryAfter: c.MaxRetryAfter,
		HTTPClient: c.HTTPClient, Logger: c.Logger, Now: c.Now, Sleep: c.Sleep, UserAgent: c.UserAgent,
	}, defaults())
	return c, t, err
}

// SanitizeAppVersion makes v fit the published appVersion pattern
// ^[a-zA-Z\d\- _.]{1,50}$: every other character becomes "-" and the
// result is cut to 50 characters, so a development build's version such as
// "v1.4.0-3-gabc123+dirty (go1.26)" is still sent rather than refused.
func SanitizeAppVersion(v string) string {
	var b strings.Builder
	for _, r := range strings.TrimSpace(v) {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == ' ', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
		if b.Len() == 50 {
			break
		}
	}
	return strings.TrimSpace(b.String())
}
