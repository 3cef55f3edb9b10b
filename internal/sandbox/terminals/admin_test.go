package terminals_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestAdminNeedsToken(t *testing.T) {
	h := newHarness(t)
	for _, path := range []string{"/_sandbox/admin/terminals", "/_sandbox/admin/api/terminals/locations"} {
		if a := h.do(t, http.MethodGet, path, nil); a.status != http.StatusUnauthorized {
			t.Errorf("%s without token: %d", path, a.status)
		}
	}
}

func TestAdminJSON(t *testing.T) {
	h := newHarness(t)
	a := h.admin(t, http.MethodPost, "/locations", map[string]any{"name": "Patio", "applicationId": "app-1", "useShortUniqueTransId": true})
	if a.status != http.StatusCreated {
		t.Fatalf("create: %d %s", a.status, a.body)
	}
	var created struct {
		LocationID string `json:"locationId"`
		APIKey     string `json:"apiKey"`
		Devices    []struct {
			Name string `json:"name"`
		} `json:"devices"`
	}
	_ = json.Unmarshal(a.body, &created)
	if created.APIKey != h.creds.APIKey || len(created.Devices) != 3 {
		t.Errorf("created = %s, want the merchant's key and three devices", a.body)
	}
	standalone := h.admin(t, http.MethodPost, "/locations", map[string]any{"name": "Lab", "production": true}).json(t)
	if standalone["apiKey"] == h.creds.APIKey || standalone["production"] != true {
		t.Errorf("standalone = %v", standalone)
	}
	for _, bad := range []any{map[string]any{"name": ""}, map[string]any{"name": "x", "colour": "red"}} {
		if a := h.admin(t, http.MethodPost, "/locations", bad); a.status != 400 {
			t.Errorf("create %v: %d", bad, a.status)
		}
	}
	if locs := h.admin(t, http.MethodGet, "/locations", nil); strings.Count(string(locs.body), `"locationId"`) != 3 {
		t.Errorf("locations = %s", locs.body)
	}

	dev := "/locations/" + h.location() + "/devices/EMULATOR"
	a = h.admin(t, http.MethodPatch, dev, map[string]any{"online": false, "duplicateDetection": false, "nextCard": "amex"})
	if v := a.json(t); a.status != 200 || v["online"] != false || v["duplicateDetection"] != false || v["nextCard"] != "amex" {
		t.Errorf("update: %d %s", a.status, a.body)
	}
	if a := h.admin(t, http.MethodPatch, dev, map[string]any{"nextCard": "diners"}); a.status != 400 {
		t.Errorf("unknown card: %d", a.status)
	}
	if a := h.admin(t, http.MethodPatch, "/locations/"+h.location()+"/devices/NOPE", map[string]any{}); a.status != 404 {
		t.Errorf("unknown device: %d", a.status)
	}
	if a := h.launch(t, "EMULATOR", "CreditSale", "1.00", "", ""); a.status != http.StatusServiceUnavailable {
		t.Errorf("offline device launch: %d %s", a.status, a.body)
	}

	id := uniqueID(t, h.launch(t, "COUNTER-S300", "CreditSale", "10.00", "INV-1", ""))
	one := h.admin(t, http.MethodGet, "/transactions/"+id, nil).json(t)
	if one["ready"] != false || one["deviceName"] != "COUNTER-S300" || one["amount"] != "10.00" {
		t.Errorf("transaction = %v", one)
	}
	if a := h.admin(t, http.MethodGet, "/transactions?limit=0", nil); a.status != 400 {
		t.Errorf("limit 0: %d", a.status)
	}

	a = h.admin(t, http.MethodPut, "/settings", map[string]any{"cardholderDelay": "0s", "terminalTimeout": "90s"})
	if v := a.json(t); v["cardholderDelay"] != "0s" || v["hostDelay"] != "1s" || v["terminalTimeout"] != "1m30s" {
		t.Errorf("settings = %s", a.body)
	}
	h.clock.Advance(3 * time.Second)
	// With no cardholder delay the result is there at once.
	id = uniqueID(t, h.launch(t, "COUNTER-S300", "CreditSale", "2.00", "", ""))
	h.result(t, id)
}

func TestAdminPage(t *testing.T) {
	h := newHarness(t)
	uniqueID(t, h.launch(t, "EMULATOR", "CreditSale", "10.00", "INV-77", ""))
	page := h.do(t, http.MethodGet, "/_sandbox/admin/terminals", nil, "Authorization", "Bearer "+adminToken)
	body := string(page.body)
	for _, want := range []string{"Corner Cafe", h.location(), "COUNTER-S300", "busy until", "waiting for the cardholder", "INV-77", `<label for="card-`} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(body, h.creds.APIKey) {
		t.Error("page shows the whole API key")
	}

	post := func(path string, form url.Values, headers ...string) answer {
		return h.do(t, http.MethodPost, path, form.Encode(), append([]string{"Authorization", "Bearer " + adminToken,
			"Content-Type", "application/x-www-form-urlencoded"}, headers...)...)
	}
	dev := "/_sandbox/admin/terminals/locations/" + h.location() + "/devices/TABLE-D210"
	if a := post(dev, url.Values{"action": {"offline"}}, "Sec-Fetch-Site", "cross-site"); a.status != http.StatusForbidden {
		t.Errorf("cross-site post: %d", a.status)
	}
	if a := post(dev, url.Values{"action": {"offline"}}); a.status != 200 || !strings.Contains(string(a.body), "Device updated.") {
		t.Errorf("device form: %d", a.status)
	}
	if v := h.admin(t, http.MethodGet, "/locations/"+h.location(), nil).json(t); v["devices"].([]any)[2].(map[string]any)["online"] != false {
		t.Errorf("device still online: %v", v)
	}
	if a := post("/_sandbox/admin/terminals/locations", url.Values{"name": {""}}); a.status != http.StatusUnprocessableEntity ||
		!strings.Contains(string(a.body), "Give a name") {
		t.Errorf("empty name: %d", a.status)
	}
	if a := post("/_sandbox/admin/terminals/locations", url.Values{"name": {"Bar"}}); !strings.Contains(string(a.body), "Location created.") {
		t.Errorf("create form: %d", a.status)
	}
	if a := post("/_sandbox/admin/terminals/settings", url.Values{"cardholderDelay": {"soon"}}); a.status != http.StatusUnprocessableEntity {
		t.Errorf("bad delay: %d", a.status)
	}
}
