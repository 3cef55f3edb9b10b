package accounts_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/uuid"

	sandbox "github.com/payportal/portal/internal/sandbox/accounts"
)

const (
	token      = "test-token"
	adminToken = "admin-secret"
)

var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// testSandbox is a sandbox on a real socket.
type testSandbox struct {
	*sandbox.Server
	url   string
	clock *sandbox.ManualClock
}

func newSandbox(t *testing.T, mutate func(*sandbox.Options)) *testSandbox {
	t.Helper()
	clock := sandbox.NewManualClock(t0)
	opts := sandbox.Options{
		UnderwritingDelay: -1, // tests of underwriting turn it on
		Tokens:            []string{token},
		APIKeys:           map[string]string{"key": "secret"},
		AdminToken:        adminToken,
		ObjectDir:         t.TempDir(),
		Clock:             clock,
	}
	if mutate != nil {
		mutate(&opts)
	}
	if mc, ok := opts.Clock.(*sandbox.ManualClock); ok {
		clock = mc
	}
	sb, err := sandbox.New(opts)
	if err != nil {
		t.Fatalf("sandbox.New: %v", err)
	}
	ts := httptest.NewServer(sb.Handler())
	t.Cleanup(func() {
		ts.Close()
		_ = sb.Close()
	})
	if err := sb.SetPublicBaseURL(ts.URL); err != nil {
		t.Fatal(err)
	}
	return &testSandbox{Server: sb, url: ts.URL, clock: clock}
}

// call makes a JSON request and decodes a JSON answer into a map.
func (s *testSandbox) call(t *testing.T, method, path, bearer string, body any) (int, map[string]any) {
	t.Helper()
	var r io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		r = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(method, s.url+path, r)
	req.Header.Set("Content-Type", "application/json")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// start creates an application with details and returns its id.
func (s *testSandbox) start(t *testing.T, details map[string]any) string {
	t.Helper()
	body := map[string]any{"externalApplicationId": uuid.NewString(), "pricingCode": "P1"}
	for k, v := range details {
		body[k] = v
	}
	status, out := s.call(t, http.MethodPost, "/v2/application/start", token, body)
	if status != http.StatusCreated {
		t.Fatalf("start: %d %v", status, out)
	}
	return out["applicationId"].(string)
}

// link generates the application link.
func (s *testSandbox) link(t *testing.T, id string) string {
	t.Helper()
	status, out := s.call(t, http.MethodPost, "/v2/application/"+id+"/link", token, nil)
	if status != http.StatusOK {
		t.Fatalf("link: %d %v", status, out)
	}
	return out["link"].(string)
}

// detailsWithoutBanking is everything required except the bank account.
func detailsWithoutBanking() map[string]any {
	return map[string]any{
		"business": map[string]any{
			"dba": "Corner Coffee", "goodsAndServices": "Coffee", "phone": "5125550134", "email": "a@corner.example",
			"address": map[string]any{"line1": "1 Main St", "city": "Austin", "state": "TX", "postalCode": "78701"},
		},
		"legalEntity": map[string]any{"type": "llc", "name": "Corner Coffee LLC", "tin": "123456789"},
		"owners": []any{map[string]any{
			"firstName": "Ada", "lastName": "Lovelace", "percentOwnership": 100, "ssn": "123456789", "dob": "1980-12-10",
		}},
	}
}
