package accounts

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Defaults of the options and of the published rules.
const (
	DefaultBasePath    = "/v2"
	DefaultURLLifetime = 120 * time.Second
	DefaultTokenLife   = 24 * time.Hour
	DefaultMaxFileSize = 512 << 20
)

// defaultWebhookRetryDelays is the wait before each repeat of a failed
// webhook delivery: six attempts over about 13 minutes.
var defaultWebhookRetryDelays = []time.Duration{
	time.Second, 5 * time.Second, 30 * time.Second, 2 * time.Minute, 10 * time.Minute,
}

// Options configures a sandbox. The environment variable named in each
// comment is the one the portal's configuration reads for `portal sandbox`
// and the embedded sandbox of `make run`; list values are comma-separated.
type Options struct {
	// PublicBaseURL is the scheme://host[:port] at which clients and
	// browsers reach the sandbox; presigned URLs and application links are
	// built on it. It is often known only after listening: leave it empty
	// here and call SetPublicBaseURL before serving. While it is empty the
	// scheme and Host of each request are used. PORTAL_SANDBOX_PUBLIC_URL.
	PublicBaseURL string
	// BasePath is the API's path prefix, the version segment of the base
	// address. Default "/v2". PORTAL_SANDBOX_BASE_PATH.
	BasePath string
	// Tokens are long-lived bearer tokens, as the operator issues to some
	// partners. PORTAL_SANDBOX_TOKENS (and _FILE).
	Tokens []string
	// APIKeys maps an API key to its secret, for POST /auth.
	// PORTAL_SANDBOX_API_KEYS as "key:secret,key2:secret2" (and _FILE).
	APIKeys map[string]string
	// TokenLifetime is how long a token from POST /auth is accepted.
	// Default 24 h. PORTAL_SANDBOX_TOKEN_LIFETIME.
	TokenLifetime time.Duration
	// PricingCodes, when not empty, are the only pricing codes start
	// accepts; when empty any code is accepted. PORTAL_SANDBOX_PRICING_CODES.
	PricingCodes []string
	// WebhookURL receives status webhooks; empty sends none.
	// PORTAL_SANDBOX_WEBHOOK_URL.
	WebhookURL string
	// WebhookToken is sent as "token" in every webhook, for the receiver
	// to check. PORTAL_SANDBOX_WEBHOOK_TOKEN (and _FILE).
	WebhookToken string
	// WebhookRetryDelays are the waits before each repeat of a failed
	// delivery. Default 1s, 5s, 30s, 2m, 10m.
	// PORTAL_SANDBOX_WEBHOOK_RETRY_DELAYS as "1s,5s,30s".
	WebhookRetryDelays []time.Duration
	// WebhookClient sends the webhooks. Default: a client with a 10 s timeout.
	WebhookClient *http.Client
	// ObjectDir is the folder of the object store (uploaded content, one
	// file per upload). Empty uses a fresh temporary folder that Close
	// removes. The portal sets it to $PORTAL_SANDBOX_DATA_DIR/objects.
	ObjectDir string
	// StateFile, when set, keeps applications and issued tokens across
	// restarts: it is read by New and rewritten after every change. Empty
	// keeps state in memory only. The portal sets it to
	// $PORTAL_SANDBOX_DATA_DIR/state.json.
	StateFile string
	// MaxFileSize is the largest contentLength the metadata POST accepts.
	// Default 512 MiB. PORTAL_SANDBOX_MAX_FILE_SIZE (bytes).
	MaxFileSize int64
	// AdminToken guards /_sandbox/admin (bearer, or basic auth with the
	// token as password). Empty turns the admin surface off.
	// PORTAL_SANDBOX_ADMIN_TOKEN (and _FILE).
	AdminToken string
	// Faults are the faults injected from the start. PORTAL_SANDBOX_LATENCY,
	// PORTAL_SANDBOX_LATENCY_JITTER, PORTAL_SANDBOX_ERROR_RATE,
	// PORTAL_SANDBOX_DROP_RATE, PORTAL_SANDBOX_URL_LIFETIME,
	// PORTAL_SANDBOX_RETRY_AFTER.
	Faults Faults
	// Compat chooses between the documented shapes of some answers.
	// PORTAL_SANDBOX_OMIT_PRESIGNED_URL, PORTAL_SANDBOX_EXPAT_SECONDS.
	Compat Compat
	// Seed makes the fault dice repeatable; 0 picks a random seed.
	// PORTAL_SANDBOX_SEED.
	Seed uint64
	// SigningKey signs presigned URLs. Default: 32 random bytes, so URLs do
	// not survive a restart (neither do applications: state is in memory).
	SigningKey []byte
	// Clock tells the time. Default: the wall clock.
	Clock Clock
	// Logger receives one line per request and per webhook attempt.
	// Default: discard.
	Logger *slog.Logger
}

// Faults are the misbehaviours the sandbox adds to API and object-store
// requests, for tests and rehearsals. The zero value injects nothing.
type Faults struct {
	// Latency is added before every API and object-store answer.
	Latency time.Duration
	// LatencyJitter adds a further random delay between 0 and this value.
	LatencyJitter time.Duration
	// ErrorRate is the share (0 to 1) of requests answered at once with an
	// error: 429, 502, 503 or 504 with equal chances on the API, 503
	// SlowDown or 500 InternalError on the object store.
	ErrorRate float64
	// DropRate is the share (0 to 1) of requests whose connection is closed
	// without an answer.
	DropRate float64
	// URLLifetime replaces the published 120-second lifetime of presigned
	// URLs when positive; it is rounded down to whole seconds, at least 1.
	URLLifetime time.Duration
	// RetryAfter is the Retry-After of injected 429 answers. Default 1 s.
	RetryAfter time.Duration
}

// Compat chooses between documented variants of the upstream's answers.
type Compat struct {
	// OmitPresignedURL makes the file metadata POST answer only fileId, as
	// the newer documentation shows; the URL then comes from GET file.
	OmitPresignedURL bool
	// ExpAtSeconds writes expAt in seconds since the epoch instead of
	// milliseconds.
	ExpAtSeconds bool
}

// validate checks the faults and reports the first bad value.
func (f Faults) validate() error {
	switch {
	case f.Latency < 0 || f.LatencyJitter < 0 || f.URLLifetime < 0 || f.RetryAfter < 0:
		return errors.New("sandbox: fault durations must not be negative")
	case f.ErrorRate < 0 || f.ErrorRate > 1:
		return fmt.Errorf("sandbox: error rate %v is not between 0 and 1", f.ErrorRate)
	case f.DropRate < 0 || f.DropRate > 1:
		return fmt.Errorf("sandbox: drop rate %v is not between 0 and 1", f.DropRate)
	case f.ErrorRate+f.DropRate > 1:
		return errors.New("sandbox: error rate and drop rate add up to more than 1")
	}
	return nil
}

// withDefaults fills the zero values and checks the rest.
func (o Options) withDefaults() (Options, error) {
	if o.BasePath == "" {
		o.BasePath = DefaultBasePath
	}
	o.BasePath = "/" + strings.Trim(o.BasePath, "/")
	if len(o.Tokens) == 0 && len(o.APIKeys) == 0 {
		return o, errors.New("sandbox: no credentials: set Tokens or APIKeys")
	}
	for _, t := range o.Tokens {
		if t == "" {
			return o, errors.New("sandbox: empty token in Tokens")
		}
	}
	for k, s := range o.APIKeys {
		if k == "" || s == "" {
			return o, errors.New("sandbox: APIKeys holds an empty key or secret")
		}
	}
	if o.PublicBaseURL != "" {
		if err := checkBaseURL(o.PublicBaseURL); err != nil {
			return o, fmt.Errorf("sandbox: public base URL: %w", err)
		}
	}
	if o.TokenLifetime <= 0 {
		o.TokenLifetime = DefaultTokenLife
	}
	if o.WebhookURL != "" {
		if err := checkBaseURL(o.WebhookURL); err != nil {
			return o, fmt.Errorf("sandbox: webhook URL: %w", err)
		}
	}
	if o.WebhookRetryDelays == nil {
		o.WebhookRetryDelays = defaultWebhookRetryDelays
	}
	if o.WebhookClient == nil {
		o.WebhookClient = &http.Client{Timeout: 10 * time.Second}
	}
	if o.MaxFileSize <= 0 {
		o.MaxFileSize = DefaultMaxFileSize
	}
	if err := o.Faults.validate(); err != nil {
		return o, err
	}
	if o.Clock == nil {
		o.Clock = systemClock{}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o, nil
}

// checkBaseURL accepts an absolute http or https URL.
func checkBaseURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an absolute http(s) URL", s)
	}
	return nil
}
