package web_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/payportal/portal/internal/web"
)

func answer(t *testing.T, h http.Handler, path string) (int, string, http.Header) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code, rec.Body.String(), rec.Header()
}

// The probes follow the process's phase: starting, ready, draining.
func TestLifecyclePhases(t *testing.T) {
	gate := web.NewLifecycle()
	if code, body, _ := answer(t, gate, "/readyz"); code != http.StatusServiceUnavailable || body != "starting\n" {
		t.Errorf("starting /readyz: %d %q", code, body)
	}
	if code, _, _ := answer(t, gate, "/healthz"); code != http.StatusOK {
		t.Errorf("starting /healthz: %d", code)
	}
	if code, body, h := answer(t, gate, "/login"); code != http.StatusServiceUnavailable || h.Get("Retry-After") != "1" || !strings.Contains(body, "starting") {
		t.Errorf("starting /login: %d %q %v", code, body, h)
	}

	gate.Ready(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("app " + r.URL.Path)) }))
	for _, path := range []string{"/readyz", "/healthz", "/login"} {
		if code, body, _ := answer(t, gate, path); code != http.StatusOK || body != "app "+path {
			t.Errorf("ready %s: %d %q", path, code, body)
		}
	}

	gate.Drain()
	if code, body, h := answer(t, gate, "/readyz"); code != http.StatusServiceUnavailable || body != "draining\n" || h.Get("Cache-Control") != "no-store" {
		t.Errorf("draining /readyz: %d %q", code, body)
	}
	for _, path := range []string{"/healthz", "/login"} {
		if code, body, h := answer(t, gate, path); code != http.StatusOK || body != "app "+path || h.Get("Connection") != "close" {
			t.Errorf("draining %s is still served, closing its connection after: %d %q %v", path, code, body, h)
		}
	}
}
