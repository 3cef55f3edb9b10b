package config_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/config"
)

func TestSandboxSettingsAreRead(t *testing.T) {
	c, err := config.LoadSandbox(lookup(map[string]string{
		"PORTAL_SANDBOX_BASE_PATH":            "api/v9/",
		"PORTAL_SANDBOX_TOKEN_LIFETIME":       "1h",
		"PORTAL_SANDBOX_MAX_FILE_SIZE":        "1048576",
		"PORTAL_SANDBOX_RETRY_AFTER":          "7s",
		"PORTAL_SANDBOX_SEED":                 "42",
		"PORTAL_SANDBOX_WEBHOOK_RETRY_DELAYS": "1s, 1m,1h",
		"PORTAL_SANDBOX_CLOCK":                "manual",
		"PORTAL_SANDBOX_UNDERWRITING_DELAY":   "5m",
		"PORTAL_SANDBOX_ACT_THEN_DROP_RATE":   "0.1",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.BasePath != "/api/v9" || c.TokenLifetime != time.Hour || c.MaxFileSize != 1<<20 || c.RetryAfter != 7*time.Second ||
		c.Seed != 42 || !slices.Equal(c.WebhookRetryDelays, []time.Duration{time.Second, time.Minute, time.Hour}) ||
		!c.ManualClock || c.UnderwritingDelay != 5*time.Minute || c.ActThenDropRate != 0.1 {
		t.Errorf("settings = %+v", c)
	}
	d, err := config.LoadSandbox(lookup(map[string]string{"PORTAL_SANDBOX_UNDERWRITING_DELAY": "off"}))
	if err != nil || d.UnderwritingDelay >= 0 || d.BasePath != "/v2" || d.ManualClock || d.WebhookRetryDelays != nil {
		t.Errorf("off and defaults: %+v %v", d, err)
	}
}

func TestBadSandboxSettingsNameTheirVariable(t *testing.T) {
	for name, value := range map[string]string{
		"PORTAL_SANDBOX_BASE_PATH":            "/v2?x",
		"PORTAL_SANDBOX_TOKEN_LIFETIME":       "forever",
		"PORTAL_SANDBOX_MAX_FILE_SIZE":        "big",
		"PORTAL_SANDBOX_SEED":                 "-1",
		"PORTAL_SANDBOX_WEBHOOK_RETRY_DELAYS": "1s,soon",
		"PORTAL_SANDBOX_CLOCK":                "fast",
		"PORTAL_SANDBOX_UNDERWRITING_DELAY":   "later",
	} {
		_, err := config.LoadSandbox(lookup(map[string]string{name: value}))
		if err == nil || !strings.Contains(err.Error(), name+" ") {
			t.Errorf("%s=%s: %v, want an error naming the variable", name, value, err)
		}
	}
}
