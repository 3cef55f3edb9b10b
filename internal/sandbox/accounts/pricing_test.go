package accounts_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"

	sandbox "github.com/payportal/portal/internal/sandbox/accounts"
)

func TestUnknownPricingCodeRefused(t *testing.T) {
	s := newSandbox(t, func(o *sandbox.Options) { o.PricingCodes = []string{"P1"} })
	status, out := s.call(t, http.MethodPost, "/v2/application/start", token,
		map[string]any{"externalApplicationId": uuid.NewString(), "pricingCode": "GOLD-9"})
	msg, _ := out["message"].(string)
	if status != http.StatusBadRequest || out["field"] != "pricingCode" || !strings.Contains(msg, `"GOLD-9" is not a pricing code issued`) {
		t.Fatalf("unknown code: %d %v", status, out)
	}
	if n := s.StartedCount(); n != 0 {
		t.Errorf("started %d applications", n)
	}
	s.start(t, nil) // P1 is configured

	// Issued through the admin JSON, as the portal will as pricing models are saved.
	path := "/_sandbox/admin/api/accounts/pricing-codes"
	if status, body := s.admin(t, http.MethodPost, path, adminToken, map[string]string{"code": "GOLD-9", "description": "Gold plan"}); status != http.StatusCreated {
		t.Fatalf("issue: %d %s", status, body)
	}
	if status, _ := s.admin(t, http.MethodPost, path, adminToken, map[string]string{"code": "GOLD-9"}); status != http.StatusOK {
		t.Errorf("issue again: %d, want 200", status)
	}
	if status, body := s.admin(t, http.MethodPost, path, adminToken, map[string]string{"code": "bad code!"}); status != http.StatusBadRequest || !strings.Contains(string(body), `"field":"code"`) {
		t.Errorf("bad code: %d %s", status, body)
	}
	if status, _ := s.call(t, http.MethodPost, "/v2/application/start", token,
		map[string]any{"externalApplicationId": uuid.NewString(), "pricingCode": "GOLD-9"}); status != http.StatusCreated {
		t.Errorf("issued code: %d, want 201", status)
	}
	status, body := s.admin(t, http.MethodGet, path, adminToken, nil)
	if status != http.StatusOK || !strings.Contains(string(body), `"code":"GOLD-9","description":"Gold plan"`) || !strings.Contains(string(body), `"source":"configured"`) {
		t.Errorf("list: %d %s", status, body)
	}
	if status, _ := s.admin(t, http.MethodDelete, path+"/GOLD-9", adminToken, nil); status != http.StatusNoContent {
		t.Errorf("withdraw: %d", status)
	}
	if status, _ := s.call(t, http.MethodPost, "/v2/application/start", token,
		map[string]any{"externalApplicationId": uuid.NewString(), "pricingCode": "GOLD-9"}); status != http.StatusBadRequest {
		t.Errorf("withdrawn code: %d, want 400", status)
	}
	if status, _ := s.admin(t, http.MethodDelete, path+"/GOLD-9", adminToken, nil); status != http.StatusNotFound {
		t.Errorf("withdraw again: %d, want 404", status)
	}
}

func TestAdminPageIssuesCodes(t *testing.T) {
	s := newSandbox(t, func(o *sandbox.Options) { o.PricingCodes = []string{"P1"} })
	req, _ := http.NewRequest(http.MethodPost, s.url+"/_sandbox/admin/accounts/pricing-codes",
		strings.NewReader(url.Values{"code": {"RETAIL-2"}, "description": {"Retail tiered"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth("admin", adminToken)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	page := s.adminPage(t, resp.Header.Get("Location"))
	for _, want := range []string{"Pricing code RETAIL-2 issued.", "<code>RETAIL-2</code>", "Retail tiered", "<code>P1</code>"} {
		if !strings.Contains(page, want) {
			t.Errorf("admin page lacks %q", want)
		}
	}
}

// TestAnyPricingCodeIssuesOnFirstUse: a sandbox told to take any code
// records each as issued, so its admin page lists what the portal uses.
func TestAnyPricingCodeIssuesOnFirstUse(t *testing.T) {
	s := newSandbox(t, nil) // New without PricingCodes takes any code
	s.start(t, nil)
	if codes := s.PricingCodes(); len(codes) != 1 || codes[0].Code != "P1" || codes[0].Source != "first use" {
		t.Errorf("codes = %+v", codes)
	}
}
