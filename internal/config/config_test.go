package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/config"
)

func lookup(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}

func valid() map[string]string {
	return map[string]string{
		"PORTAL_DATABASE_URL":    "postgres://localhost/portal",
		"PORTAL_ENCRYPTION_KEYS": "k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
	}
}

func TestDefaults(t *testing.T) {
	c, err := config.Load(lookup(valid()))
	if err != nil {
		t.Fatal(err)
	}
	if c.ListenAddr != "127.0.0.1:8080" || c.PublicURL.String() != "http://127.0.0.1:8080" {
		t.Errorf("listen %s public %s", c.ListenAddr, c.PublicURL)
	}
	if c.SessionIdleTimeout != 30*time.Minute || c.SessionLifetime != 12*time.Hour {
		t.Errorf("session timeouts %s %s", c.SessionIdleTimeout, c.SessionLifetime)
	}
	if c.EncryptionActiveKey != "k1" || c.Upstream.Mode != "sandbox" || c.Storage.Driver != "local" || c.Storage.MaxUploadBytes != 25<<20 {
		t.Errorf("unexpected defaults: %+v", c)
	}
	if c.SecureCookies() {
		t.Error("http public URL must not force Secure cookies")
	}
	w := c.Workers
	if w.PushConcurrency != 64 || w.MailConcurrency != 16 || w.Concurrency != 4 || w.LeaseTTL != 15*time.Second {
		t.Errorf("worker defaults: %+v", w)
	}
	// The pool: 16 for web requests, every housekeeping worker, a quarter of the push,
	// e-mail and webhook workers.
	if c.DBMaxConns != 16+4+4+16+4 {
		t.Errorf("pool of %d connections by default", c.DBMaxConns)
	}
}

// The pool follows the workers unless set; a web-only instance keeps the web share.
func TestPoolIsSizedToTheWorkers(t *testing.T) {
	for _, tc := range []struct {
		vars map[string]string
		want int32
	}{
		{map[string]string{"PORTAL_PUSH_CONCURRENCY": "200"}, 16 + 4 + 4 + 50 + 4},
		{map[string]string{"PORTAL_MAIL_CONCURRENCY": "40"}, 16 + 4 + 10 + 16 + 4},
		{map[string]string{"PORTAL_RUN_WORKERS": "false"}, 16},
		{map[string]string{"PORTAL_DB_MAX_CONNS": "30"}, 30},
	} {
		vars := valid()
		for k, v := range tc.vars {
			vars[k] = v
		}
		c, err := config.Load(lookup(vars))
		if err != nil {
			t.Fatal(err)
		}
		if c.DBMaxConns != tc.want {
			t.Errorf("%v: pool of %d, want %d", tc.vars, c.DBMaxConns, tc.want)
		}
	}
}

func TestDatabaseURLFallsBackToDATABASE_URL(t *testing.T) {
	vars := valid()
	delete(vars, "PORTAL_DATABASE_URL")
	vars["DATABASE_URL"] = "postgres://elsewhere/db"
	c, err := config.Load(lookup(vars))
	if err != nil || c.DatabaseURL != "postgres://elsewhere/db" {
		t.Fatalf("got %v %v", c, err)
	}
}

func TestSecretFromFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "db")
	if err := os.WriteFile(path, []byte("postgres://from-file/db\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := valid()
	delete(vars, "PORTAL_DATABASE_URL")
	vars["PORTAL_DATABASE_URL_FILE"] = path
	c, err := config.Load(lookup(vars))
	if err != nil || c.DatabaseURL != "postgres://from-file/db" {
		t.Fatalf("got %v %v", c, err)
	}
}

func TestBadValuesNameTheirVariable(t *testing.T) {
	cases := []struct {
		name, value, want string
	}{
		{"PORTAL_SESSION_IDLE_TIMEOUT", "soon", `PORTAL_SESSION_IDLE_TIMEOUT must be a positive duration such as 30m or 12h, not "soon"`},
		{"PORTAL_DB_MAX_CONNS", "many", `PORTAL_DB_MAX_CONNS must be a whole number, not "many"`},
		{"PORTAL_DB_MAX_CONNS", "1", `PORTAL_DB_MAX_CONNS must be between 4 and 500, not 1`},
		{"PORTAL_TRUST_PROXY", "perhaps", `PORTAL_TRUST_PROXY must be true or false, not "perhaps"`},
		{"PORTAL_ENV", "staging", `PORTAL_ENV must be one of development, production, not "staging"`},
		{"PORTAL_PUBLIC_URL", "ftp://x", `PORTAL_PUBLIC_URL must be an absolute http(s) URL, not "ftp://x"`},
		{"PORTAL_STORAGE", "s3", `PORTAL_S3_BUCKET is required when PORTAL_STORAGE=s3`},
		{"PORTAL_UPSTREAM_MODE", "remote", `PORTAL_UPSTREAM_BASE_URL is required when PORTAL_UPSTREAM_MODE=remote`},
		{"PORTAL_DATABASE_URL_FILE", "/nonexistent/secret", `PORTAL_DATABASE_URL and PORTAL_DATABASE_URL_FILE are both set; set only one`},
		{"PORTAL_JOB_LEASE", "1s", `PORTAL_JOB_LEASE must be between 3s and 10m0s, not 1s`},
		{"PORTAL_PUSH_CONCURRENCY", "0", `PORTAL_PUSH_CONCURRENCY must be between 1 and 1000, not 0`},
		{"PORTAL_DB_MAX_CONNS", "8", `PORTAL_DB_MAX_CONNS must be larger than PORTAL_WORKER_CONCURRENCY plus a quarter of PORTAL_MAIL_CONCURRENCY`},
	}
	for _, tc := range cases {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			vars := valid()
			vars[tc.name] = tc.value
			_, err := config.Load(lookup(vars))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

func TestMissingRequiredSettingsAreAllReported(t *testing.T) {
	_, err := config.Load(lookup(map[string]string{}))
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"PORTAL_DATABASE_URL is required", "PORTAL_ENCRYPTION_KEYS is required"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v\nmissing %q", err, want)
		}
	}
}

func TestUnreadableSecretFile(t *testing.T) {
	vars := valid()
	vars["PORTAL_SMTP_PASSWORD_FILE"] = "/nonexistent/password"
	_, err := config.Load(lookup(vars))
	if err == nil || !strings.Contains(err.Error(), "PORTAL_SMTP_PASSWORD_FILE cannot be read") {
		t.Fatalf("got %v", err)
	}
}

func TestHTTPSPublicURLForcesSecureCookies(t *testing.T) {
	vars := valid()
	vars["PORTAL_PUBLIC_URL"] = "https://onboarding.example.com"
	c, err := config.Load(lookup(vars))
	if err != nil || !c.SecureCookies() {
		t.Fatalf("got %v %v", c, err)
	}
}
