package accounts_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	sandbox "github.com/payportal/portal/internal/sandbox/accounts"
)

// admin makes an admin request with the given bearer token.
func (s *testSandbox) admin(t *testing.T, method, path, bearer string, body any) (int, []byte) {
	t.Helper()
	var r io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		r = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(method, s.url+path, r)
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

func TestAdminNeedsItsToken(t *testing.T) {
	s := newSandbox(t, nil)
	if status, _ := s.admin(t, http.MethodGet, "/_sandbox/admin/api/applications", "", nil); status != http.StatusUnauthorized {
		t.Errorf("no token: %d, want 401", status)
	}
	if status, _ := s.admin(t, http.MethodGet, "/_sandbox/admin/api/applications", token, nil); status != http.StatusUnauthorized {
		t.Errorf("API token: %d, want 401", status)
	}
	off := newSandbox(t, func(o *sandbox.Options) { o.AdminToken = "" })
	if status, _ := off.admin(t, http.MethodGet, "/_sandbox/admin", adminToken, nil); status != http.StatusNotFound {
		t.Errorf("admin without a configured token: %d, want 404", status)
	}
	req, _ := http.NewRequest(http.MethodGet, s.url+"/_sandbox/admin", nil)
	req.SetBasicAuth("anyone", adminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("admin page with basic auth: %d, want 200", resp.StatusCode)
	}
}

func TestAdminMovesApplications(t *testing.T) {
	s := newSandbox(t, nil)
	id := s.start(t, nil)
	path := "/_sandbox/admin/api/applications/" + id + "/status"
	if status, body := s.admin(t, http.MethodPost, path, adminToken, map[string]string{"status": "boarded"}); status != http.StatusConflict {
		t.Errorf("board an initiated application: %d %s, want 409", status, body)
	}
	if status, body := s.admin(t, http.MethodPost, path, adminToken, map[string]string{"status": "approved"}); status != http.StatusConflict {
		t.Errorf("unpublished state: %d %s, want 409", status, body)
	}
	if status, body := s.admin(t, http.MethodPost, path, adminToken, map[string]string{"status": "declined"}); status != http.StatusOK || !strings.Contains(string(body), `"status":"declined"`) {
		t.Errorf("decline: %d %s", status, body)
	}
	if status, _ := s.admin(t, http.MethodPost, "/_sandbox/admin/api/applications/nope/status", adminToken, map[string]string{"status": "declined"}); status != http.StatusNotFound {
		t.Errorf("unknown application: %d, want 404", status)
	}
	status, body := s.admin(t, http.MethodGet, "/_sandbox/admin/api/applications", adminToken, nil)
	if status != http.StatusOK || !strings.Contains(string(body), id) {
		t.Errorf("list: %d %s", status, body)
	}
}

func TestAdminPageForms(t *testing.T) {
	s := newSandbox(t, nil)
	id := s.start(t, nil)
	post := func(path string, form url.Values) int {
		req, _ := http.NewRequest(http.MethodPost, s.url+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth("admin", adminToken)
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := post("/_sandbox/admin/applications/"+id+"/status", url.Values{"status": {"declined"}}); got != http.StatusSeeOther {
		t.Errorf("decline form: %d, want 303", got)
	}
	if a, _ := s.Application(id); a.Status != sandbox.StatusDeclined {
		t.Errorf("status = %s, want declined", a.Status)
	}
	if got := post("/_sandbox/admin/faults", url.Values{"latency": {"5ms"}, "errorRate": {"0.25"}, "omitPresignedUrl": {"yes"}}); got != http.StatusSeeOther {
		t.Errorf("faults form: %d, want 303", got)
	}
	if f := s.Faults(); f.Latency != 5*time.Millisecond || f.ErrorRate != 0.25 {
		t.Errorf("faults = %+v", f)
	}
	if got := post("/_sandbox/admin/faults", url.Values{"errorRate": {"2"}}); got != http.StatusBadRequest {
		t.Errorf("bad rate: %d, want 400", got)
	}
}

func TestAdminFaultsAndClock(t *testing.T) {
	s := newSandbox(t, nil)
	status, body := s.admin(t, http.MethodPut, "/_sandbox/admin/api/faults", adminToken,
		map[string]any{"latency": "1ms", "errorRate": 0.5, "urlLifetime": "10s", "expAtSeconds": true})
	if status != http.StatusOK || !strings.Contains(string(body), `"urlLifetime":"10s"`) {
		t.Fatalf("put faults: %d %s", status, body)
	}
	if f := s.Faults(); f.URLLifetime != 10*time.Second || f.ErrorRate != 0.5 {
		t.Errorf("faults = %+v", f)
	}
	if status, _ := s.admin(t, http.MethodPut, "/_sandbox/admin/api/faults", adminToken, map[string]any{"dropRate": 1.5}); status != http.StatusBadRequest {
		t.Errorf("drop rate 1.5: %d, want 400", status)
	}
	if status, body := s.admin(t, http.MethodPost, "/_sandbox/admin/api/clock/advance", adminToken, map[string]string{"by": "2m"}); status != http.StatusOK {
		t.Errorf("advance: %d %s", status, body)
	}
	if got := s.clock.Now(); !got.Equal(t0.Add(2 * time.Minute)) {
		t.Errorf("clock = %v, want t0+2m", got)
	}
}
