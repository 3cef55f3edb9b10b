package config_test

import (
	"os"
	"strings"
	"testing"

	"github.com/payportal/portal/internal/config"
)

// The reference in docs/ is generated from the readers and docs.go: a variable
// added, removed or changed without `make docs` fails here.
func TestReferenceIsCurrent(t *testing.T) {
	entries, err := config.Reference()
	if err != nil {
		t.Fatal(err)
	}
	want := config.Markdown(entries)
	got, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("docs/configuration.md differs from the configuration code: run `make docs` and commit it")
	}
}

// Every variable Load reads appears in the reference, each exactly once, with a meaning.
func TestReferenceNamesEveryVariable(t *testing.T) {
	entries, err := config.Reference()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		if seen[e.Name] {
			t.Errorf("%s twice", e.Name)
		}
		seen[e.Name] = true
		if strings.TrimSpace(e.Meaning) == "" || e.Accepts == "" {
			t.Errorf("%s: meaning %q, accepts %q", e.Name, e.Meaning, e.Accepts)
		}
	}
	for _, name := range []string{"PORTAL_DATABASE_URL", "PORTAL_S3_BUCKET", "PORTAL_UPSTREAM_TOKEN", "PORTAL_SANDBOX_CLOCK"} {
		if !seen[name] {
			t.Errorf("%s missing from the reference", name)
		}
	}
	for _, name := range []string{"PORTAL_DATABASE_URL", "PORTAL_ENCRYPTION_KEYS", "PORTAL_SMTP_PASSWORD", "PORTAL_METRICS_TOKEN"} {
		for _, e := range entries {
			if e.Name == name && !e.Secret {
				t.Errorf("%s is read as a secret but not marked so", name)
			}
		}
	}
}
