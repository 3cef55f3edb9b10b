package accounts_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	sandbox "github.com/payportal/portal/internal/sandbox/accounts"
)

func TestBearerAuth(t *testing.T) {
	s := newSandbox(t, nil)
	body := map[string]any{"externalApplicationId": "4b0a3c5e-8f7d-4e3a-9c1b-2d6f8e0a1b2c", "pricingCode": "P1"}
	for _, bearer := range []string{"", "wrong"} {
		status, out := s.call(t, http.MethodPost, "/v2/application/start", bearer, body)
		if status != http.StatusUnauthorized || out["message"] == "" {
			t.Errorf("bearer %q: %d %v, want 401 with a message", bearer, status, out)
		}
	}
	// A token from /auth works until its lifetime ends.
	status, out := s.call(t, http.MethodPost, "/v2/auth", "", map[string]string{"apiKey": "key", "secret": "secret"})
	issued, _ := out["AccessToken"].(string)
	if status != http.StatusOK || issued == "" {
		t.Fatalf("auth: %d %v", status, out)
	}
	if status, _ := s.call(t, http.MethodPost, "/v2/application/start", issued, body); status != http.StatusCreated {
		t.Errorf("start with issued token: %d", status)
	}
	s.clock.Advance(24 * time.Hour)
	if status, _ := s.call(t, http.MethodPost, "/v2/application/start", issued, body); status != http.StatusUnauthorized {
		t.Errorf("start with 24 h old token: %d, want 401", status)
	}
	if status, _ := s.call(t, http.MethodPost, "/v2/auth", "", map[string]string{"apiKey": "key", "secret": "nope"}); status != http.StatusUnauthorized {
		t.Errorf("auth with wrong secret: %d, want 401", status)
	}
	if status, out := s.call(t, http.MethodPost, "/v2/auth", "", map[string]string{"apiKey": "key"}); status != http.StatusBadRequest || out["field"] != "secret" {
		t.Errorf("auth without secret: %d %v, want 400 naming secret", status, out)
	}
}

func TestRequestBodyChecks(t *testing.T) {
	s := newSandbox(t, nil)
	tests := []struct {
		name, contentType, body string
		status                  int
		message                 string
	}{
		{"not JSON", "application/json", `{"externalApplicationId": `, 400, "not valid JSON"},
		{"not JSON, where", "application/json", `{"externalApplicationId": 4111111111111111x}`, 400, "not valid JSON (at byte"},
		{"over 1 MiB", "application/json", `{"pricingCode": "` + strings.Repeat("x", 1<<20) + `"}`, 413, "larger than 1048576 bytes"},
		{"not an object", "application/json", `[1]`, 400, "JSON object"},
		{"wrong content type", "text/plain", `{}`, 415, "application/json"},
		{"missing external id", "application/json", `{"pricingCode":"P1"}`, 400, "externalApplicationId: is required"},
		{"unknown field", "application/json", `{"externalApplicationId":"4b0a3c5e-8f7d-4e3a-9c1b-2d6f8e0a1b2c","pricingCode":"P1","business":{"dbaName":"x"}}`, 400, "business.dbaName: unknown field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, s.url+"/v2/application/start", strings.NewReader(tt.body))
			req.Header.Set("Content-Type", tt.contentType)
			req.Header.Set("Authorization", "Bearer "+token)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var buf bytes.Buffer
			_, _ = buf.ReadFrom(resp.Body)
			if resp.StatusCode != tt.status || !strings.Contains(buf.String(), tt.message) {
				t.Errorf("got %d %s, want %d containing %q", resp.StatusCode, buf.String()[:min(buf.Len(), 300)], tt.status, tt.message)
			}
			// The sandbox's own words, never Go's decoder's nor the body's.
			for _, leak := range []string{"invalid character", "json:", "Go value", "4111111111111111"} {
				if strings.Contains(buf.String(), leak) {
					t.Errorf("the refusal quotes %q: %s", leak, buf.String())
				}
			}
		})
	}
}

func TestFileMetadataChecks(t *testing.T) {
	s := newSandbox(t, func(o *sandbox.Options) { o.MaxFileSize = 1000 })
	id := s.start(t, nil)
	good := map[string]any{"fileType": "voidedCheck", "name": "check.png", "contentLength": "120", "contentType": "image/png"}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for kk, vv := range good {
			m[kk] = vv
		}
		m[k] = v
		return m
	}
	tests := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"unknown file type", with("fileType", "selfie"), "fileType"},
		{"length as a number", with("contentLength", 120), "contentLength"},
		{"length with a sign", with("contentLength", "+120"), "contentLength"},
		{"too large", with("contentLength", "1001"), "contentLength"},
		{"empty name", with("name", ""), "name"},
		{"bad content type", with("contentType", "pdf"), "contentType"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, out := s.call(t, http.MethodPost, "/v2/application/"+id+"/file", token, tt.body)
			if status != http.StatusBadRequest || out["field"] != tt.field {
				t.Errorf("got %d %v, want 400 naming %s", status, out, tt.field)
			}
		})
	}
	status, out := s.call(t, http.MethodPost, "/v2/application/"+id+"/file", token, good)
	if status != http.StatusCreated || out["fileId"] == nil || out["presignedUrl"] == nil {
		t.Fatalf("good metadata: %d %v", status, out)
	}
	if exp, _ := out["expAt"].(float64); int64(exp) != t0.Add(120*time.Second).UnixMilli() {
		t.Errorf("expAt = %v, want %d", out["expAt"], t0.Add(120*time.Second).UnixMilli())
	}
	if status, _ := s.call(t, http.MethodGet, "/v2/application/"+id+"/file/9d7c1a8e-0000-4000-8000-000000000000", token, nil); status != http.StatusNotFound {
		t.Errorf("unknown file: %d, want 404", status)
	}
}

func TestShortURLLifetime(t *testing.T) {
	s := newSandbox(t, func(o *sandbox.Options) { o.Faults.URLLifetime = 10 * time.Second })
	id := s.start(t, nil)
	_, out := s.call(t, http.MethodPost, "/v2/application/"+id+"/file", token,
		map[string]any{"fileType": "other", "name": "a.txt", "contentLength": "3", "contentType": "text/plain"})
	put := func() int {
		req, _ := http.NewRequest(http.MethodPut, out["presignedUrl"].(string), strings.NewReader("abc"))
		req.Header.Set("Content-Type", "text/plain")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	s.clock.Advance(9 * time.Second)
	if got := put(); got != http.StatusOK {
		t.Errorf("PUT at 9 s: %d, want 200", got)
	}
	s.clock.Advance(time.Second)
	if got := put(); got != http.StatusForbidden {
		t.Errorf("PUT at 10 s: %d, want 403", got)
	}
}
