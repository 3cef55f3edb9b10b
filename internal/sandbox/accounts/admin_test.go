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
	if status, _ := s.admin(t, http.MethodGet, "/_sandbox/admin/api/accounts/applications", "", nil); status != http.StatusUnauthorized {
		t.Errorf("no token: %d, want 401", status)
	}
	if status, _ := s.admin(t, http.MethodGet, "/_sandbox/admin/api/accounts/applications", token, nil); status != http.StatusUnauthorized {
		t.Errorf("API token: %d, want 401", status)
	}
	off := newSandbox(t, func(o *sandbox.Options) { o.AdminToken = "" })
	if status, _ := off.admin(t, http.MethodGet, "/_sandbox/admin", adminToken, nil); status != http.StatusNotFound {
		t.Errorf("admin without a configured token: %d, want 404", status)
	}
	req, _ := http.NewRequest(http.MethodGet, s.url+"/_sandbox/admin/accounts", nil)
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
	path := "/_sandbox/admin/api/accounts/applications/" + id + "/status"
	if status, body := s.admin(t, http.MethodPost, path, adminToken, map[string]string{"status": "boarded"}); status != http.StatusConflict {
		t.Errorf("board an initiated application: %d %s, want 409", status, body)
	}
	if status, body := s.admin(t, http.MethodPost, path, adminToken, map[string]string{"status": "approved"}); status != http.StatusConflict {
		t.Errorf("unpublished state: %d %s, want 409", status, body)
	}
	if status, body := s.admin(t, http.MethodPost, path, adminToken, map[string]string{"status": "declined"}); status != http.StatusOK || !strings.Contains(string(body), `"status":"declined"`) {
		t.Errorf("decline: %d %s", status, body)
	}
	if status, _ := s.admin(t, http.MethodPost, "/_sandbox/admin/api/accounts/applications/nope/status", adminToken, map[string]string{"status": "declined"}); status != http.StatusNotFound {
		t.Errorf("unknown application: %d, want 404", status)
	}
	status, body := s.admin(t, http.MethodGet, "/_sandbox/admin/api/accounts/applications", adminToken, nil)
	if status != http.StatusOK || !strings.Contains(string(body), id) {
		t.Errorf("list: %d %s", status, body)
	}
}

func TestAdminPageForms(t *testing.T) {
	s := newSandbox(t, nil)
	id := s.start(t, detailsWithoutBanking())
	post := func(path string, form url.Values) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, s.url+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth("admin", adminToken)
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("Location")
	}
	status, loc := post("/_sandbox/admin/accounts/applications/"+id+"/status", url.Values{"status": {"declined"}})
	if status != http.StatusSeeOther || !strings.Contains(loc, "notice=") {
		t.Errorf("decline form: %d %s, want 303 with a notice", status, loc)
	}
	if a, _ := s.Application(id); a.Status != sandbox.StatusDeclined {
		t.Errorf("status = %s, want declined", a.Status)
	}
	// The page says what happened, by name.
	page := s.adminPage(t, loc)
	if !strings.Contains(page, "Corner Coffee moved to Declined") {
		t.Errorf("no feedback after the move:\n%s", page)
	}
	// A final state offers no move (no Board, no Decline).
	if strings.Contains(page, "/applications/"+id+"/status") || !strings.Contains(page, "No moves: final state") {
		t.Errorf("a declined application still offers moves:\n%s", page)
	}
	status, loc = post("/_sandbox/admin/accounts/applications/"+id+"/status", url.Values{"status": {"boarded"}})
	if status != http.StatusSeeOther || !strings.Contains(loc, "error=") {
		t.Errorf("refused move: %d %s, want 303 with an error", status, loc)
	}
	if page := s.adminPage(t, loc); !strings.Contains(page, "cannot move to boarded") {
		t.Errorf("refused move not explained:\n%s", page)
	}
	if status, _ := post("/_sandbox/admin/accounts/settings", url.Values{"urlLifetime": {"10s"}, "omitPresignedUrl": {"yes"}}); status != http.StatusSeeOther {
		t.Errorf("settings form: %d, want 303", status)
	}
	if f := s.Faults(); f.URLLifetime != 10*time.Second || !s.Compat().OmitPresignedURL {
		t.Errorf("settings not applied: %+v %+v", f, s.Compat())
	}
}

// adminPage fetches an admin page with the admin token.
func (s *testSandbox) adminPage(t *testing.T, path string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.url+strings.TrimPrefix(path, s.url), nil)
	req.SetBasicAuth("admin", adminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d\n%s", path, resp.StatusCode, raw)
	}
	return string(raw)
}

func TestAdminSettingsJSON(t *testing.T) {
	s := newSandbox(t, nil)
	status, body := s.admin(t, http.MethodPut, "/_sandbox/admin/api/accounts/settings", adminToken,
		map[string]any{"urlLifetime": "10s", "expAtSeconds": true})
	if status != http.StatusOK || !strings.Contains(string(body), `"urlLifetime":"10s"`) {
		t.Fatalf("put settings: %d %s", status, body)
	}
	if f := s.Faults(); f.URLLifetime != 10*time.Second || !s.Compat().ExpAtSeconds {
		t.Errorf("settings not applied: %+v", f)
	}
	if status, _ := s.admin(t, http.MethodPut, "/_sandbox/admin/api/accounts/settings", adminToken, map[string]any{"urlLifetime": "soon"}); status != http.StatusBadRequest {
		t.Errorf("bad lifetime: %d, want 400", status)
	}
	if status, _ := s.admin(t, http.MethodPut, "/_sandbox/admin/api/accounts/settings", adminToken, map[string]any{"errorRate": 1}); status != http.StatusBadRequest {
		t.Errorf("unknown setting: %d, want 400", status)
	}
}

// TestAdminListsPageByPage: newest first, a page at a time, so the admin
// surface stays fast with thousands of applications.
func TestAdminListsPageByPage(t *testing.T) {
	s := newSandbox(t, nil)
	var ids []string
	for range 3 {
		ids = append(ids, s.start(t, nil))
	}
	var page struct {
		Applications []sandbox.Application `json:"applications"`
		Next         string                `json:"next"`
	}
	_, body := s.admin(t, http.MethodGet, "/_sandbox/admin/api/accounts/applications?limit=2", adminToken, nil)
	if err := json.Unmarshal(body, &page); err != nil || len(page.Applications) != 2 || page.Applications[0].ID != ids[2] || page.Next == "" {
		t.Fatalf("first page: %s", body)
	}
	_, body = s.admin(t, http.MethodGet, "/_sandbox/admin/api/accounts/applications?limit=2&before="+page.Next, adminToken, nil)
	page.Next = ""
	if err := json.Unmarshal(body, &page); err != nil || len(page.Applications) != 1 || page.Applications[0].ID != ids[0] || page.Next != "" {
		t.Errorf("second page: %s", body)
	}
	html := s.adminPage(t, "/_sandbox/admin/accounts")
	if !strings.Contains(html, "Unnamed application "+ids[0][:8]) || !strings.Contains(html, "Started by the partner") {
		t.Errorf("admin page names:\n%s", html)
	}
	// Only the moves valid from initiated are offered.
	if strings.Contains(html, `value="boarded"`) || !strings.Contains(html, `value="withdrawn"`) {
		t.Errorf("admin page offers moves not valid from initiated")
	}
}
