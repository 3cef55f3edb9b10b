package accounts_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	sandbox "github.com/payportal/portal/internal/sandbox/accounts"
)

func TestStateSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	persistent := func(o *sandbox.Options) {
		o.StateFile = filepath.Join(dir, "state.db")
		o.ObjectDir = filepath.Join(dir, "objects")
	}
	first := newSandbox(t, persistent)
	extID := uuid.NewString()
	status, out := first.call(t, http.MethodPost, "/v2/application/start", token,
		map[string]any{"externalApplicationId": extID, "pricingCode": "P1", "owners": []any{map[string]any{"percentOwnership": 50.5}}})
	if status != http.StatusCreated {
		t.Fatalf("start: %d %v", status, out)
	}
	id := out["applicationId"].(string)
	_, file := first.call(t, http.MethodPost, "/v2/application/"+id+"/file", token,
		map[string]any{"fileType": "other", "name": "a.txt", "contentLength": "3", "contentType": "text/plain"})
	req, _ := http.NewRequest(http.MethodPut, file["presignedUrl"].(string), strings.NewReader("abc"))
	req.Header.Set("Content-Type", "text/plain")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("upload: %v %v", resp, err)
	}
	first.link(t, id)
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	opts := sandbox.Options{Tokens: []string{token}, Clock: first.clock}
	persistent(&opts)
	second, err := sandbox.New(opts)
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	t.Cleanup(func() { _ = second.Close() })
	a, ok := second.Application(id)
	if !ok || a.Status != sandbox.StatusRequested || !a.Linked || !strings.Contains(string(a.Data), `"percentOwnership":50.5`) {
		t.Fatalf("after restart: %+v %s", a, a.Data)
	}
	if _, ok := second.FileSHA256(id, file["fileId"].(string)); !ok {
		t.Error("uploaded file forgotten")
	}
	ts := httptest.NewServer(second.Handler())
	defer ts.Close()
	s2 := &testSandbox{Server: second, url: ts.URL, clock: first.clock}
	if status, out := s2.call(t, http.MethodPost, "/v2/application/start", token,
		map[string]any{"externalApplicationId": extID, "pricingCode": "P1"}); status != http.StatusOK || out["applicationId"] != id {
		t.Errorf("repeat start after restart: %d %v, want 200 with %s", status, out, id)
	}
}

func TestLinkUsesRequestHostWithoutPublicURL(t *testing.T) {
	sb, err := sandbox.New(sandbox.Options{Tokens: []string{token}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sb.Close() })
	ts := httptest.NewServer(sb.Handler())
	defer ts.Close()
	s := &testSandbox{Server: sb, url: ts.URL}
	id := s.start(t, nil)
	if link := s.link(t, id); link != ts.URL+"/app/"+id {
		t.Errorf("link = %s, want %s/app/%s", link, ts.URL, id)
	}
}

// TestLegacyStateImportedOnce: the JSON state file of earlier sandboxes is
// imported into the store at the first start, then renamed.
func TestLegacyStateImportedOnce(t *testing.T) {
	dir := t.TempDir()
	legacy := filepath.Join(dir, "state.json")
	id, ext := uuid.NewString(), uuid.NewString()
	body := `{"version":1,"applications":[{"id":"` + id + `","externalId":"` + ext + `","pricingCode":"OLD-1","status":"requested",` +
		`"data":{"owners":[{"percentOwnership":50.5}]},"linked":true,"created":"2026-01-02T00:00:00Z","updated":"2026-01-02T00:00:00Z",` +
		`"files":[],"history":[{"status":"initiated","at":"2026-01-02T00:00:00Z"}]}],"tokens":{"sbx_old":"2099-01-01T00:00:00Z"},"tokensIssued":3}`
	if err := os.WriteFile(legacy, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	opts := func(o *sandbox.Options) {
		o.StateFile, o.ImportStateFile, o.PricingCodes = filepath.Join(dir, "state.db"), legacy, []string{"P1"}
	}
	s := newSandbox(t, opts)
	a, ok := s.Application(id)
	if !ok || a.Status != sandbox.StatusRequested || !strings.Contains(string(a.Data), `"percentOwnership":50.5`) || s.TokensIssued() != 3 {
		t.Fatalf("imported: %+v %s, tokens %d", a, a.Data, s.TokensIssued())
	}
	if _, err := os.Stat(legacy + ".imported"); err != nil {
		t.Errorf("legacy file not renamed: %v", err)
	}
	// The old token still works; the old code is issued; a repeat start finds the application.
	if status, out := s.call(t, http.MethodPost, "/v2/application/start", "sbx_old",
		map[string]any{"externalApplicationId": ext, "pricingCode": "OLD-1"}); status != http.StatusOK || out["applicationId"] != id {
		t.Errorf("repeat start with the old token: %d %v", status, out)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	again := newSandbox(t, opts)
	if n := again.StartedCount(); n != 1 {
		t.Errorf("applications after a restart = %d, want 1 (imported once)", n)
	}
}
