package web

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/labstack/echo/v4"
)

// The client is the rightmost forwarded address that is not a configured
// proxy, and X-Forwarded-For counts only when a configured proxy sent it.
func TestClientAddressBelievesOnlyConfiguredProxies(t *testing.T) {
	local := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	chain := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("10.1.0.0/16")}
	for _, tc := range []struct {
		name    string
		proxies []netip.Prefix
		remote  string
		xff     []string
		want    string
	}{
		// A client on a private network names another address: its own
		// (private) address is what the proxy appended, and counts.
		{"forged by a private client", local, "127.0.0.1:5000", []string{"203.0.113.9, 10.0.0.7"}, "10.0.0.7"},
		{"forged in a second header", local, "127.0.0.1:5000", []string{"203.0.113.9", "10.0.0.7"}, "10.0.0.7"},
		{"not from a proxy", local, "10.0.0.8:5000", []string{"203.0.113.9"}, "10.0.0.8"},
		{"two proxies", chain, "127.0.0.1:5000", []string{"203.0.113.9, 198.51.100.4, 10.1.2.3"}, "198.51.100.4"},
		{"no proxies configured", nil, "10.0.0.8:5000", []string{"203.0.113.9"}, "10.0.0.8"},
		{"no header", local, "127.0.0.1:5000", nil, "127.0.0.1"},
	} {
		e := echo.New()
		e.IPExtractor = clientAddress(tc.proxies)
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.RemoteAddr = tc.remote
		for _, v := range tc.xff {
			req.Header.Add(echo.HeaderXForwardedFor, v)
		}
		if got := e.NewContext(req, httptest.NewRecorder()).RealIP(); got != tc.want {
			t.Errorf("%s: client %s, want %s", tc.name, got, tc.want)
		}
		want := tc.proxies != nil && tc.remote == "127.0.0.1:5000"
		if got := fromTrustedProxy(tc.proxies)(req); got != want {
			t.Errorf("%s: from a trusted proxy %v, want %v", tc.name, got, want)
		}
	}
}
