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

	"filippo.io/age"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// Defaults of the options and of the published rules.
const (
	DefaultBasePath          = "/v2"
	DefaultURLLifetime       = 120 * time.Second
	DefaultTokenLife         = 24 * time.Hour
	DefaultMaxFileSize       = 512 << 20
	DefaultUnderwritingDelay = 2 * time.Minute
)

// DefaultWebhookRetryDelays is the wait before each repeat of a failed
// webhook delivery: ten attempts spread over about a day, the waits growing
// as a processor's do (30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, 8 h).
var DefaultWebhookRetryDelays = []time.Duration{
	30 * time.Second, 2 * time.Minute, 10 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 4 * time.Hour, 8 * time.Hour, 8 * time.Hour,
}

// Clock is the sandbox clock (kit.Clock), kept under this name for callers
// of the area alone.
type Clock = kit.Clock

// ManualClock is kit.ManualClock: a clock that moves only when told to.
type ManualClock = kit.ManualClock

// NewManualClock returns a clock that reads t0 until it is advanced.
func NewManualClock(t0 time.Time) *ManualClock { return kit.NewManualClock(t0) }

// Options configures the account application area. The environment
// variable named in each comment is the one the portal's configuration reads
// for `portal sandbox` and the embedded sandbox of `make run`; list values
// are comma-separated.
type Options struct {
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
	// PricingCodes are the pricing codes the operator issued at enrollment;
	// more are issued on the admin page or through the admin JSON. Start
	// refuses any other code. PORTAL_SANDBOX_PRICING_CODES.
	PricingCodes []string
	// AnyPricingCode makes start accept any pricing code (and record it as
	// issued on first use), for a sandbox that has not been told the
	// partner's codes. Off by default.
	AnyPricingCode bool
	// UnderwritingDelay is how long, by the sandbox clock, the back office
	// takes to decide an accepted application (and to resume after more
	// information came). Default 2 min; negative turns automatic
	// underwriting off. PORTAL_SANDBOX_UNDERWRITING_DELAY ("off" for off).
	UnderwritingDelay time.Duration
	// WebhookURL receives status webhooks; empty sends none.
	// PORTAL_SANDBOX_WEBHOOK_URL.
	WebhookURL string
	// WebhookToken is sent as "token" in every webhook, for the receiver
	// to check. PORTAL_SANDBOX_WEBHOOK_TOKEN (and _FILE).
	WebhookToken string
	// WebhookRetryDelays are the waits, by the sandbox clock, before each
	// repeat of a failed delivery. Default DefaultWebhookRetryDelays.
	// PORTAL_SANDBOX_WEBHOOK_RETRY_DELAYS as "30s,2m,10m".
	WebhookRetryDelays []time.Duration
	// WebhookClient sends the webhooks. Default: a client with a 10 s timeout.
	WebhookClient *http.Client
	// ObjectDir is the folder of the object store (uploaded content, one
	// file per upload). Empty uses a fresh temporary folder that Close
	// removes. The portal sets it to $PORTAL_SANDBOX_DATA_DIR/objects.
	ObjectDir string
	// ObjectIdentity, when set, keeps every uploaded object encrypted at rest in age's
	// format (chunked authenticated encryption, streaming) to this identity's recipient, as
	// a processor keeps merchants' documents. The portal sets it for the sandbox it embeds
	// (`make run`), from a key sealed with its own key ring; `portal sandbox` alone keeps
	// plaintext objects unless given one. ReadObject decrypts.
	ObjectIdentity *age.X25519Identity
	// ImportStateFile names the JSON state file of earlier sandboxes
	// ($PORTAL_SANDBOX_DATA_DIR/state.json): when it exists its applications
	// and tokens are imported into the store once and the file is renamed
	// to state.json.imported.
	ImportStateFile string
	// MaxFileSize is the largest contentLength the metadata POST accepts.
	// Default 512 MiB. PORTAL_SANDBOX_MAX_FILE_SIZE (bytes).
	MaxFileSize int64
	// Faults: URLLifetime replaces the published 120-second lifetime of
	// presigned URLs (PORTAL_SANDBOX_URL_LIFETIME). The other fields are the
	// faults of every area; the area uses them only when New builds it
	// alone (the sandbox server sets them for all areas).
	Faults Faults
	// Compat chooses between the documented shapes of some answers.
	// PORTAL_SANDBOX_OMIT_PRESIGNED_URL, PORTAL_SANDBOX_EXPAT_SECONDS.
	Compat Compat
	// SigningKey signs presigned URLs. Default: 32 random bytes, so URLs do
	// not survive a restart.
	SigningKey []byte
	// OnBoarded is called once for each application that reaches boarded,
	// after the change is stored: the sandbox server provisions the
	// merchant's payment account and terminal location there.
	OnBoarded func(ctx context.Context, m kit.Merchant)

	// The options below serve New, which builds the area alone; the
	// sandbox server passes them to every area through kit.Env instead.

	// PublicBaseURL is the scheme://host[:port] at which clients and
	// browsers reach the sandbox. PORTAL_SANDBOX_PUBLIC_URL.
	PublicBaseURL string
	// StateFile is the bbolt file that keeps state across restarts; empty
	// keeps it in a temporary file.
	StateFile string
	// AdminToken guards the admin surface. PORTAL_SANDBOX_ADMIN_TOKEN.
	AdminToken string
	// Seed makes the fault dice repeatable; 0 picks a random seed.
	Seed uint64
	// Clock tells the time. Default: the wall clock.
	Clock Clock
	// Logger receives a line per request and per webhook attempt.
	Logger *slog.Logger
}

// Faults are the misbehaviours the sandbox adds to API and object-store
// requests, as area A sees them: the shared faults of every area (see
// kit.Faults) and the lifetime of presigned URLs. The zero value injects
// nothing.
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

// Shared returns the faults of every area, without the URL lifetime.
func (f Faults) Shared() kit.Faults {
	return kit.Faults{Latency: f.Latency, LatencyJitter: f.LatencyJitter, ErrorRate: f.ErrorRate,
		DropRate: f.DropRate, RetryAfter: f.RetryAfter}
}

// Compat chooses between documented variants of the upstream's answers.
type Compat struct {
	// OmitPresignedURL makes the file metadata POST answer only fileId, as
	// the newer documentation shows; the URL then comes from GET file.
	OmitPresignedURL bool `json:"omitPresignedUrl"`
	// ExpAtSeconds writes expAt in seconds since the epoch instead of
	// milliseconds.
	ExpAtSeconds bool `json:"expAtSeconds"`
}

// withDefaults fills the zero values and checks the rest.
func (o Options) withDefaults() (Options, error) {
	o = o.filled()
	checks := []func() error{
		o.checkBasePath, o.checkCredentials, o.checkPricingCodes,
		o.checkURLs, o.checkWebhookRetryDelays, o.checkFaults,
	}
	for _, check := range checks {
		if err := check(); err != nil {
			return o, err
		}
	}
	return o, nil
}

// filled gives every zero value its default, and the base path its one
// leading slash.
func (o Options) filled() Options {
	if o.BasePath == "" {
		o.BasePath = DefaultBasePath
	}
	o.BasePath = "/" + strings.Trim(o.BasePath, "/")
	if o.TokenLifetime <= 0 {
		o.TokenLifetime = DefaultTokenLife
	}
	if o.UnderwritingDelay == 0 {
		o.UnderwritingDelay = DefaultUnderwritingDelay
	}
	if o.WebhookRetryDelays == nil {
		o.WebhookRetryDelays = DefaultWebhookRetryDelays
	}
	if o.WebhookClient == nil {
		o.WebhookClient = &http.Client{Timeout: 10 * time.Second}
	}
	if o.MaxFileSize <= 0 {
		o.MaxFileSize = DefaultMaxFileSize
	}
	return o
}

func (o Options) checkBasePath() error {
	if o.BasePath == "/" || strings.ContainsAny(o.BasePath, " {}?#") {
		return fmt.Errorf("sandbox: base path %q must be a path such as /v2", o.BasePath)
	}
	return nil
}

// checkCredentials asks for at least one token or API key, none of them empty.
func (o Options) checkCredentials() error {
	if len(o.Tokens) == 0 && len(o.APIKeys) == 0 {
		return errors.New("sandbox: no credentials: set Tokens or APIKeys")
	}
	for _, t := range o.Tokens {
		if t == "" {
			return errors.New("sandbox: empty token in Tokens")
		}
	}
	for k, s := range o.APIKeys {
		if k == "" || s == "" {
			return errors.New("sandbox: APIKeys holds an empty key or secret")
		}
	}
	return nil
}

func (o Options) checkPricingCodes() error {
	for _, c := range o.PricingCodes {
		if msg := checkPricingCode(c); msg != "" {
			return fmt.Errorf("sandbox: pricing code %q %s", c, msg)
		}
	}
	return nil
}

// checkURLs accepts an empty public base URL or webhook URL (not served, not
// sent), else an absolute http(s) one.
func (o Options) checkURLs() error {
	if o.PublicBaseURL != "" {
		if err := checkBaseURL(o.PublicBaseURL); err != nil {
			return fmt.Errorf("sandbox: public base URL: %w", err)
		}
	}
	if o.WebhookURL != "" {
		if err := checkBaseURL(o.WebhookURL); err != nil {
			return fmt.Errorf("sandbox: webhook URL: %w", err)
		}
	}
	return nil
}

func (o Options) checkWebhookRetryDelays() error {
	for _, d := range o.WebhookRetryDelays {
		if d <= 0 {
			return errors.New("sandbox: webhook retry delays must be positive")
		}
	}
	return nil
}

func (o Options) checkFaults() error {
	if o.Faults.URLLifetime < 0 {
		return errors.New("sandbox: the URL lifetime must not be negative")
	}
	return nil
}

// checkBaseURL accepts an absolute http or https URL.
func checkBaseURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an absolute http(s) URL", s)
	}
	return nil
}
