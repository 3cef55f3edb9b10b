package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
)

func TestOperationalEndpoints(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	c := env.Client(t)
	if res := c.Get("/healthz"); res.Status != http.StatusOK {
		t.Errorf("healthz %d", res.Status)
	}
	if res := c.Get("/readyz"); res.Status != http.StatusOK || !strings.Contains(res.Body, "ready") {
		t.Errorf("readyz %d %s", res.Status, res.Body)
	}
	c.Get("/login")
	res := c.Get("/metrics")
	if res.Status != http.StatusOK || !strings.Contains(res.Body, `portal_http_requests_total{method="GET",route="/login",status="200"}`) {
		t.Errorf("metrics missing the login route:\n%s", res.Body)
	}
	if !strings.Contains(res.Body, `portal_http_request_duration_seconds_bucket{method="GET",route="/login"`) {
		t.Error("no latency histogram by route")
	}
}

func TestReadyzFailsWhenMigrationsArePending(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	if _, err := env.DB.SQL.Exec("DELETE FROM goose_db_version WHERE version_id = (SELECT max(version_id) FROM goose_db_version)"); err != nil {
		t.Fatal(err)
	}
	if res := env.Client(t).Get("/readyz"); res.Status != http.StatusServiceUnavailable {
		t.Fatalf("readyz with a pending migration: %d", res.Status)
	}
}

func TestSecurityHeadersOnPages(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	res := env.Client(t).Get("/login")
	h := res.Header
	csp := h.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'self'", "script-src 'self'", "frame-ancestors 'none'", "object-src 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
		t.Errorf("CSP allows unsafe sources: %s", csp)
	}
	if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") == "" || h.Get("X-Request-Id") == "" {
		t.Errorf("headers: %v", h)
	}
	cookie := h.Get("Set-Cookie")
	if !strings.Contains(cookie, "HttpOnly") || !strings.Contains(cookie, "SameSite=Lax") || strings.Contains(cookie, "Secure") {
		t.Errorf("session cookie over plain http: %s", cookie)
	}
}

func TestSecureCookieBehindTrustedTLSProxy(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.WithEnv("PORTAL_TRUSTED_PROXIES", "127.0.0.1/32"))
	res := env.Client(t).Do(http.MethodGet, "/login", nil, http.Header{"X-Forwarded-Proto": {"https"}})
	if !strings.Contains(res.Header.Get("Set-Cookie"), "Secure") {
		t.Fatalf("cookie not Secure behind a TLS proxy: %s", res.Header.Get("Set-Cookie"))
	}
	untrusted := apptest.New(t)
	res = untrusted.Client(t).Do(http.MethodGet, "/login", nil, http.Header{"X-Forwarded-Proto": {"https"}})
	if strings.Contains(res.Header.Get("Set-Cookie"), "Secure") {
		t.Fatal("an untrusted X-Forwarded-Proto header set Secure")
	}
	// Behind proxies, but this request did not come from one of them.
	elsewhere := apptest.New(t, apptest.WithEnv("PORTAL_TRUSTED_PROXIES", "10.9.9.9"))
	res = elsewhere.Client(t).Do(http.MethodGet, "/login", nil, http.Header{"X-Forwarded-Proto": {"https"}})
	if strings.Contains(res.Header.Get("Set-Cookie"), "Secure") {
		t.Fatal("X-Forwarded-Proto from an address that is not a configured proxy set Secure")
	}
}

func TestFingerprintedAssetsAreCachedForAYear(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	c := env.Client(t)
	page := c.Get("/login").Body
	i := strings.Index(page, "/assets/css/app.css?v=")
	if i < 0 {
		t.Fatal("layout does not link the fingerprinted stylesheet")
	}
	url := page[i : i+strings.Index(page[i:], `"`)]
	res := c.Get(url)
	if res.Status != http.StatusOK || !strings.Contains(res.Header.Get("Cache-Control"), "immutable") || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/css") {
		t.Fatalf("asset %s: %d %v", url, res.Status, res.Header)
	}
	if res := c.Get("/assets/../go.mod"); res.Status != http.StatusNotFound {
		t.Fatalf("path escape: %d", res.Status)
	}
}

// The icon answers at /favicon.ico, where clients look for it, and pages link it at its
// fingerprinted address.
func TestFaviconAnswers(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	c := env.Client(t)
	res := c.Get("/favicon.ico")
	if res.Status != http.StatusOK || res.Header.Get("Content-Type") != "image/x-icon" || !strings.HasPrefix(res.Body, "\x00\x00\x01\x00") {
		t.Fatalf("/favicon.ico: %d %q, %d bytes", res.Status, res.Header.Get("Content-Type"), len(res.Body))
	}
	page := c.Get("/login").Body
	i := strings.Index(page, `<link rel="icon" href="/assets/img/favicon.ico?v=`)
	if i < 0 || !strings.Contains(page, `<link rel="icon" href="/assets/img/favicon.svg?v=`) {
		t.Fatal("the layout does not link the icon")
	}
	i += len(`<link rel="icon" href="`)
	linked := c.Get(page[i : i+strings.Index(page[i:], `"`)])
	if linked.Status != http.StatusOK || linked.Body != res.Body || !strings.Contains(linked.Header.Get("Cache-Control"), "immutable") {
		t.Fatalf("the linked icon: %d %v", linked.Status, linked.Header)
	}
}

func TestNavigationDependsOnRole(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	_, adminPW := env.CreateUser(t, "admin@example.com", models.RoleAdmin)
	_, repPW := env.CreateUser(t, "rep@example.com", models.RoleSalesRep)
	admin := env.Client(t)
	admin.Login("admin@example.com", adminPW)
	if body := admin.Get("/").Body; !strings.Contains(body, `href="/admin/users"`) {
		t.Error("admin nav lacks Users")
	}
	rep := env.Client(t)
	rep.Login("rep@example.com", repPW)
	if body := rep.Get("/").Body; strings.Contains(body, `href="/admin/users"`) {
		t.Error("rep nav shows admin links")
	}
}

func TestAnonymousVisitorIsSentToLogin(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	res := env.Client(t).Get("/")
	if res.Status != http.StatusSeeOther || res.Location != "/login?next=/" {
		t.Fatalf("%d %s", res.Status, res.Location)
	}
	// An htmx request (an autosave) is not redirected away from the page that holds
	// the typed values; it gets a message to show instead.
	res = env.Client(t).Do(http.MethodGet, "/", nil, http.Header{"Hx-Request": {"true"}})
	if res.Status != http.StatusUnauthorized || res.Header.Get("HX-Redirect") != "" || !strings.Contains(res.Body, "your session has ended") {
		t.Fatalf("htmx: %d %v %s", res.Status, res.Header, res.Body)
	}
}

func TestCSRFCheckCapsMultipartBodiesWithoutTheHeader(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.WithEnv("PORTAL_MAX_UPLOAD_BYTES", "1024"))
	c := env.Client(t)
	c.Get("/login")
	body := "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"x.pdf\"\r\n\r\n" +
		strings.Repeat("A", 3<<20) + "\r\n--b--\r\n"
	res := c.Do(http.MethodPost, "/login", strings.NewReader(body), http.Header{"Content-Type": {"multipart/form-data; boundary=b"}})
	if res.Status != http.StatusRequestEntityTooLarge {
		t.Fatalf("oversized multipart without a CSRF header: %d, want 413", res.Status)
	}
}

// An autosave whose session ended meanwhile is told so, without being asked to
// reload the page that holds the typed values.
func TestHTMXPostAfterSessionEndedSaysSoWithoutReload(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	res := env.Client(t).Do(http.MethodPost, "/applications", strings.NewReader("x=1"), http.Header{
		"Content-Type": {"application/x-www-form-urlencoded"}, "Hx-Request": {"true"}, "X-Csrf-Token": {"token-of-an-ended-session"},
	})
	if res.Status != http.StatusForbidden || !strings.Contains(res.Body, "your session has ended") || strings.Contains(res.Body, "Reload") {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
}

func TestMetricsTokenGuardsMetrics(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.WithEnv("PORTAL_METRICS_TOKEN", "scrape-secret"))
	c := env.Client(t)
	if res := c.Get("/metrics"); res.Status != http.StatusUnauthorized {
		t.Fatalf("without the token: %d", res.Status)
	}
	if res := c.Do(http.MethodGet, "/metrics", nil, http.Header{"Authorization": {"Bearer wrong"}}); res.Status != http.StatusUnauthorized {
		t.Fatalf("wrong token: %d", res.Status)
	}
	res := c.Do(http.MethodGet, "/metrics", nil, http.Header{"Authorization": {"Bearer scrape-secret"}})
	if res.Status != http.StatusOK || !strings.Contains(res.Body, "portal_http_requests_total") {
		t.Fatalf("right token: %d", res.Status)
	}
}
