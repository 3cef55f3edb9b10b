package merchants_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Admins' credential forms: a refused value is said beside its field (422),
// the non-secret values stay, and a secret is never put back in the page.
// Without the areas' addresses configured, a test says so; outside sandbox
// mode nothing is fetched from a sandbox. Secrets entered are sealed.
func TestCredentialFormsAndTestsWithoutAddresses(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	id, _, _ := w.boarded(t, w.rep, "Blue Fern")
	base := "/merchants/" + id.String()
	w.adminC.Get(base)

	bad := "tok en with spaces and-long-enough"
	res := w.adminC.PostForm(base+"/payments", url.Values{"oid": {"ACME-OID-7"}, "token": {bad}})
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, `id="token-error"`) ||
		!strings.Contains(res.Body, "spaces or line breaks") || !strings.Contains(res.Body, `value="ACME-OID-7"`) || strings.Contains(res.Body, bad) {
		t.Errorf("refused token: %d\n%s", res.Status, res.Body)
	}
	res = w.adminC.PostForm(base+"/locations", url.Values{"location_id": {"bad id!"}, "location_name": {"Main"}})
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, `id="location_id-error"`) || !strings.Contains(res.Body, `value="bad id!"`) {
		t.Errorf("refused location: %d", res.Status)
	}

	token := "eyJhbGciOiJIUzI1NiJ9.payload.signature-abcdef1234"
	key := "live-key-0123456789abcdef"
	for path, form := range map[string]url.Values{
		"/payments":  {"oid": {"ACME-OID-7"}, "token": {token}},
		"/terminals": {"api_key": {key}},
		"/locations": {"location_id": {"YZM-5B5-RAC"}, "location_name": {"Main counter"}},
	} {
		if res := w.adminC.PostForm(base+path, form); res.Status != http.StatusSeeOther {
			t.Fatalf("%s: %d\n%s", path, res.Status, res.Body)
		}
	}
	page := w.adminC.Get(base)
	if !strings.Contains(page.Body, "••••1234") || !strings.Contains(page.Body, "••••cdef") || strings.Contains(page.Body, token) || strings.Contains(page.Body, key) {
		t.Error("the page does not mask the secrets")
	}
	if res := w.adminC.PostForm(base+"/payments", url.Values{"oid": {"x"}, "token": {"short"}}); !strings.Contains(res.Body, "too short") {
		t.Error("a short token is not refused")
	}
	w.adminC.Get(base)
	w.adminC.PostForm(base+"/payments/test", nil)
	w.adminC.PostForm(base+"/terminals/test", nil)
	page = w.adminC.Get(base)
	for _, want := range []string{"no address for the direct payment API (PORTAL_PAYMENTS_BASE_URL)", "no address for the terminal cloud (PORTAL_TERMINALS_BASE_URL)"} {
		if !strings.Contains(page.Body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page.Body, `id="fetch-again"`) {
		t.Error("outside sandbox mode the page offers to fetch from a sandbox")
	}
	if res := w.adminC.PostForm(base+"/fetch", nil); res.Status != http.StatusConflict {
		t.Errorf("fetch outside sandbox mode: %d", res.Status)
	}
	assertNoPlaintext(t, w, map[string]string{"the token": token, "the API key": key})
}
