package payments

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
	DefaultTimeout        = 60 * time.Second
	DefaultMaxAttempts    = 4
	DefaultRetryBaseDelay = 500 * time.Millisecond
	DefaultRetryMaxDelay  = 8 * time.Second
	DefaultMaxRetryAfter  = 30 * time.Second
	// DefaultIdleConnsPerHost is how many idle connections the default HTTP
	// client keeps to the gateway.
	DefaultIdleConnsPerHost = 128
)

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

// withDefaults fills the zero values and checks the rest.
func (c Config) withDefaults() (Config, error) {
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return c, fmt.Errorf("payments: base URL %q is not an absolute http(s) URL", c.BaseURL)
	}
	if c.Timeout < 0 || c.MaxAttempts < 0 || c.RetryBaseDelay < 0 || c.RetryMaxDelay < 0 || c.MaxRetryAfter < 0 {
		return c, errors.New("payments: timeouts, delays and attempts must not be negative")
	}
	c.BaseURL = strings.TrimSuffix(c.BaseURL, "/")
	c.AppVersion = SanitizeAppVersion(c.AppVersion)
	c.Timeout = or(c.Timeout, DefaultTimeout)
	c.MaxAttempts = or(c.MaxAttempts, DefaultMaxAttempts)
	c.RetryBaseDelay = or(c.RetryBaseDelay, DefaultRetryBaseDelay)
	c.RetryMaxDelay = max(or(c.RetryMaxDelay, DefaultRetryMaxDelay), c.RetryBaseDelay)
	c.MaxRetryAfter = or(c.MaxRetryAfter, DefaultMaxRetryAfter)
	if c.HTTPClient == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		// Many sales go out at once (every cashier of every merchant shares
		// this client): net/http's default of two idle connections per host
		// would close the rest after each burst and dial (and, over TLS,
		// handshake) them again for the next.
		tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 2*DefaultIdleConnsPerHost, DefaultIdleConnsPerHost
		c.HTTPClient = &http.Client{Transport: tr}
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
		c.UserAgent = "payportal-payments/1"
	}
	return c, nil
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
