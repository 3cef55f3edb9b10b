package config

import (
	"fmt"
	"regexp"
	"strings"
)

// basePathShape is what PORTAL_SANDBOX_BASE_PATH accepts: a URL path.
var basePathShape = regexp.MustCompile(`^/?[A-Za-z0-9._~-]+(/[A-Za-z0-9._~-]+)*/?$`)

func readSandbox(r *reader) SandboxConfig {
	c := readSandboxVars(r)
	if !basePathShape.MatchString(c.BasePath) {
		r.fail("PORTAL_SANDBOX_BASE_PATH", fmt.Sprintf("must be a URL path such as /v2, not %q", c.BasePath))
	}
	c.BasePath = "/" + strings.Trim(c.BasePath, "/")
	return c
}

func readSandboxVars(r *reader) SandboxConfig {
	return SandboxConfig{
		ListenAddr: r.str("PORTAL_SANDBOX_LISTEN_ADDR", "127.0.0.1:8081"),
		PublicURL:  r.str("PORTAL_SANDBOX_PUBLIC_URL", ""),
		AdminToken: r.secret("PORTAL_SANDBOX_ADMIN_TOKEN", ""),
		DataDir:    r.str("PORTAL_SANDBOX_DATA_DIR", ".data/sandbox"),

		Tokens:        r.list(r.secret("PORTAL_SANDBOX_TOKENS", "")),
		APIKeys:       r.pairs("PORTAL_SANDBOX_API_KEYS", r.secret("PORTAL_SANDBOX_API_KEYS", "")),
		WebhookURL:    r.str("PORTAL_SANDBOX_WEBHOOK_URL", ""),
		WebhookToken:  r.secret("PORTAL_SANDBOX_WEBHOOK_TOKEN", ""),
		PricingCodes:  r.list(r.str("PORTAL_SANDBOX_PRICING_CODES", "")),
		Latency:       r.durationOrZero("PORTAL_SANDBOX_LATENCY"),
		LatencyJitter: r.durationOrZero("PORTAL_SANDBOX_LATENCY_JITTER"),
		ErrorRate:     r.share("PORTAL_SANDBOX_ERROR_RATE"),
		DropRate:      r.share("PORTAL_SANDBOX_DROP_RATE"),
		URLLifetime:   r.durationOrZero("PORTAL_SANDBOX_URL_LIFETIME"),
		OmitURL:       r.boolean("PORTAL_SANDBOX_OMIT_PRESIGNED_URL", false),
		ExpAtSeconds:  r.boolean("PORTAL_SANDBOX_EXPAT_SECONDS", false),

		BasePath:           r.str("PORTAL_SANDBOX_BASE_PATH", "/v2"),
		TokenLifetime:      r.durationOrZero("PORTAL_SANDBOX_TOKEN_LIFETIME"),
		MaxFileSize:        int64(r.integer("PORTAL_SANDBOX_MAX_FILE_SIZE", 0, 1, 1<<40)),
		RetryAfter:         r.durationOrZero("PORTAL_SANDBOX_RETRY_AFTER"),
		ActThenDropRate:    r.share("PORTAL_SANDBOX_ACT_THEN_DROP_RATE"),
		Seed:               r.uint64Value("PORTAL_SANDBOX_SEED"),
		WebhookRetryDelays: r.durations("PORTAL_SANDBOX_WEBHOOK_RETRY_DELAYS"),
		ManualClock:        r.oneOf("PORTAL_SANDBOX_CLOCK", "wall", "wall", "manual") == "manual",
		UnderwritingDelay:  r.durationOrOff("PORTAL_SANDBOX_UNDERWRITING_DELAY", 0),
	}
}

// LoadSandbox reads only the sandbox's settings, for `portal sandbox`, which
// needs no database.
func LoadSandbox(lookup func(string) (string, bool)) (*SandboxConfig, error) {
	r := &reader{lookup: lookup}
	c := readSandbox(r)
	if len(r.errs) > 0 {
		return nil, &Error{Problems: r.errs}
	}
	return &c, nil
}
