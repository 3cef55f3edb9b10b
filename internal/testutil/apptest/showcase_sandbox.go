package apptest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

// sandboxApplication starts an application at the sandbox, as the portal's
// push does, and keeps its merchant page's link.
func (s *Showcase) sandboxApplication(t testing.TB) {
	t.Helper()
	details := map[string]any{
		"externalApplicationId": "00000000-0000-4000-8000-000000000042", "pricingCode": "SHOWCASE-IC",
		"business": map[string]any{
			"dba": "Corner Bakery", "goodsAndServices": "Bakery", "phone": "5035550142", "email": "hello@bakery.example",
			"address":       map[string]any{"line1": "1 Main St", "city": "Portland", "state": "OR", "postalCode": "97204"},
			"monthlyVolume": "62000.00", "averageTicket": "45.00",
		},
		"legalEntity": map[string]any{"type": "llc", "name": "Corner Bakery LLC", "tin": "931234567"},
		"owners": []any{map[string]any{
			"firstName": "Jordan", "lastName": "Lee", "percentOwnership": 100, "ssn": "123456789", "dob": "1980-12-10",
		}},
	}
	var started struct {
		ApplicationID string `json:"applicationId"`
	}
	s.upstream(t, http.MethodPost, "/application/start", details, &started)
	var link struct{ Link string }
	s.upstream(t, http.MethodPost, "/application/"+started.ApplicationID+"/link", nil, &link)
	s.SandboxLink = link.Link
}

// upstream calls the sandbox's area A API with the portal's token.
func (s *Showcase) upstream(t testing.TB, method, path string, body, out any) {
	t.Helper()
	s.call(t, method, s.Env.Sandbox.BaseURL+path, "Bearer "+s.Env.Config.Upstream.Token, body, out)
}

// sandboxJSON calls the sandbox's admin JSON API.
func (s *Showcase) sandboxJSON(t testing.TB, method, path string, body, out any) {
	t.Helper()
	s.call(t, method, s.Env.Sandbox.URL+path, "Bearer "+s.Env.Config.Sandbox.AdminToken, body, out)
}

func (s *Showcase) call(t testing.TB, method, address, authorization string, body, out any) {
	t.Helper()
	var rd io.Reader = http.NoBody
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, address, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", authorization)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", s.Env.Sandbox.URL)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		t.Fatalf("%s %s: %d %s", method, address, res.StatusCode, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %v\n%s", method, address, err, raw)
		}
	}
}
