package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/config"
)

// Private receivers are for tests and make run: production refuses the setting, by name.
func TestWebhooksSettings(t *testing.T) {
	c, err := config.Load(lookup(valid()))
	if err != nil || c.Webhooks.AllowPrivate || c.Webhooks.Timeout != 10*time.Second || c.Workers.WebhookConcurrency != 16 {
		t.Fatalf("defaults: %+v, %v", c.Webhooks, err)
	}
	vars := valid()
	vars["PORTAL_WEBHOOKS_ALLOW_PRIVATE"] = "true"
	if c, err := config.Load(lookup(vars)); err != nil || !c.Webhooks.AllowPrivate {
		t.Fatalf("development: %v", err)
	}
	vars["PORTAL_ENV"] = "production"
	if _, err := config.Load(lookup(vars)); err == nil || !strings.Contains(err.Error(), "PORTAL_WEBHOOKS_ALLOW_PRIVATE") {
		t.Fatalf("production with private receivers: %v", err)
	}
	vars = valid()
	vars["PORTAL_WEBHOOKS_TIMEOUT"] = "2m"
	if _, err := config.Load(lookup(vars)); err == nil || !strings.Contains(err.Error(), "PORTAL_WEBHOOKS_TIMEOUT") {
		t.Fatalf("a two-minute timeout: %v", err)
	}
}
