package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/cli"
)

// standalone runs `portal sandbox` with vars until the test ends and
// returns its URL and what it printed.
func standalone(t *testing.T, vars map[string]string) (string, string) {
	t.Helper()
	addr := freeAddr(t)
	vars["PORTAL_SANDBOX_LISTEN_ADDR"] = addr
	if _, ok := vars["PORTAL_SANDBOX_DATA_DIR"]; !ok {
		vars["PORTAL_SANDBOX_DATA_DIR"] = t.TempDir()
	}
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() { done <- cli.Run(ctx, []string{"sandbox"}, env(vars), &stdout, &stderr) }()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("portal sandbox exited %d:\n%s", code, stderr.String())
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(stdout.String(), "listening") {
		select {
		case code := <-done:
			t.Fatalf("portal sandbox exited %d:\n%s%s", code, stdout.String(), stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("portal sandbox did not start:\n%s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return "http://" + addr, stdout.String()
}

// call makes a JSON request and returns the status and decoded answer.
func call(t *testing.T, method, url, bearer string, body any) (int, map[string]any) {
	t.Helper()
	var r io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		r = strings.NewReader(string(raw))
	}
	req, _ := http.NewRequest(method, url, r)
	req.Header.Set("Content-Type", "application/json")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	out := map[string]any{}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// TestStandaloneSandboxReadsEverySetting runs `portal sandbox` with every
// documented setting and checks each one from outside.
func TestStandaloneSandboxReadsEverySetting(t *testing.T) {
	hooks := make(chan string, 8)
	var calls atomic.Int32
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var h struct{ Status string }
		_ = json.NewDecoder(r.Body).Decode(&h)
		if calls.Add(1) == 1 {
			http.Error(w, "not yet", http.StatusServiceUnavailable)
		}
		hooks <- h.Status
	}))
	defer receiver.Close()
	base, printed := standalone(t, map[string]string{
		"PORTAL_SANDBOX_API_KEYS":             "key:secret",
		"PORTAL_SANDBOX_ADMIN_TOKEN":          "admin",
		"PORTAL_SANDBOX_BASE_PATH":            "/api/v9",
		"PORTAL_SANDBOX_TOKEN_LIFETIME":       "1h",
		"PORTAL_SANDBOX_MAX_FILE_SIZE":        "10",
		"PORTAL_SANDBOX_RETRY_AFTER":          "7s",
		"PORTAL_SANDBOX_SEED":                 "42",
		"PORTAL_SANDBOX_WEBHOOK_RETRY_DELAYS": "45s",
		"PORTAL_SANDBOX_WEBHOOK_URL":          receiver.URL,
		"PORTAL_SANDBOX_CLOCK":                "manual",
		"PORTAL_SANDBOX_PRICING_CODES":        "P1",
		"PORTAL_SANDBOX_UNDERWRITING_DELAY":   "off",
	})
	if !strings.Contains(printed, "(API base "+base+"/api/v9)") || !strings.Contains(printed, "Manual clock at") {
		t.Errorf("start-up lines:\n%s", printed)
	}
	api := base + "/api/v9"
	admin := func(method, path string, body any) (int, map[string]any) {
		t.Helper()
		var r io.Reader
		if body != nil {
			raw, _ := json.Marshal(body)
			r = strings.NewReader(string(raw))
		}
		req, _ := http.NewRequest(method, base+path, r)
		req.SetBasicAuth("admin", "admin")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out := map[string]any{}
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}

	_, out := call(t, http.MethodPost, api+"/auth", "", map[string]string{"apiKey": "key", "secret": "secret"})
	tok, _ := out["AccessToken"].(string)
	status, out := call(t, http.MethodPost, api+"/application/start", tok, map[string]any{"externalApplicationId": uuid.NewString(), "pricingCode": "P1"})
	id, _ := out["applicationId"].(string)
	if status != http.StatusCreated || id == "" {
		t.Fatalf("start under the base path: %d %v", status, out)
	}
	if status, _ := call(t, http.MethodPost, api+"/application/start", tok, map[string]any{"externalApplicationId": uuid.NewString(), "pricingCode": "P2"}); status != http.StatusBadRequest {
		t.Errorf("a code not configured: %d, want 400", status)
	}
	if status, out := call(t, http.MethodPost, api+"/application/"+id+"/file", tok,
		map[string]any{"fileType": "other", "name": "a.txt", "contentLength": "11", "contentType": "text/plain"}); status != http.StatusBadRequest || !strings.Contains(out["message"].(string), "at most 10 bytes") {
		t.Errorf("file over the maximum: %d %v", status, out)
	}
	if h := <-hooks; h != "initiated" { // refused once, retried after 45 s by the manual clock
		t.Fatalf("first delivery: %s", h)
	}
	// The clock moves only once the sandbox has stored the retry.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		req, _ := http.NewRequest(http.MethodGet, base+"/_sandbox/admin/api/accounts/webhooks", nil)
		req.SetBasicAuth("admin", "admin")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var pending []struct {
			Attempts int
			Due      time.Time
		}
		_ = json.NewDecoder(resp.Body).Decode(&pending)
		resp.Body.Close()
		_, clock := admin(http.MethodGet, "/_sandbox/admin/api/clock", nil)
		now, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(clock["now"]))
		if len(pending) == 1 && pending[0].Attempts == 1 && pending[0].Due.After(now) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the failed delivery was not stored for a retry: %+v", pending)
		}
	}
	if status, out := admin(http.MethodPost, "/_sandbox/admin/api/clock/advance", map[string]string{"by": "59m"}); status != http.StatusOK {
		t.Fatalf("advance: %d %v", status, out)
	}
	select {
	case h := <-hooks:
		if h != "initiated" {
			t.Errorf("retry delivered %s", h)
		}
	case <-time.After(10 * time.Second):
		t.Error("the webhook was not retried after the configured delay")
	}
	if status, _ := call(t, http.MethodGet, api+"/application/"+id+"/link", tok, nil); status != http.StatusOK {
		t.Errorf("token before its lifetime: %d", status)
	}
	admin(http.MethodPost, "/_sandbox/admin/api/clock/advance", map[string]string{"by": "1m"})
	if status, _ := call(t, http.MethodGet, api+"/application/"+id+"/link", tok, nil); status != http.StatusUnauthorized {
		t.Errorf("token after 1 h: %d, want 401", status)
	}
	if _, out := admin(http.MethodGet, "/_sandbox/admin/api/faults", nil); out["retryAfter"] != "7s" {
		t.Errorf("faults = %v, want retryAfter 7s", out)
	}
}

// TestStandaloneSeedRepeatsTheFaults: the same seed draws the same faults.
func TestStandaloneSeedRepeatsTheFaults(t *testing.T) {
	run := func() string {
		base, _ := standalone(t, map[string]string{
			"PORTAL_SANDBOX_TOKENS": "tok", "PORTAL_SANDBOX_SEED": "7", "PORTAL_SANDBOX_ERROR_RATE": "0.5",
		})
		var seq []string
		for range 16 {
			status, _ := call(t, http.MethodGet, base+"/v2/application/"+uuid.NewString()+"/link", "tok", nil)
			seq = append(seq, http.StatusText(status))
		}
		return strings.Join(seq, ",")
	}
	first, second := run(), run()
	if first != second || !regexp.MustCompile(`Not Found`).MatchString(first) || first == strings.Repeat("Not Found,", 15)+"Not Found" {
		t.Errorf("runs with one seed differ or inject nothing:\n%s\n%s", first, second)
	}
}
