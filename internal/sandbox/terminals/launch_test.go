package terminals_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestLaunchRefusals(t *testing.T) {
	h := newHarness(t)
	loc := h.location()
	withData := func(mutate func(m, d map[string]any)) map[string]any {
		m := launchBody(loc, "EMULATOR", "CreditSale", "10.00", "INV-1", "")
		mutate(m, m["Data"].(map[string]any))
		return m
	}
	tests := []struct {
		name   string
		body   any
		header []string
		status int
		want   string
	}{
		{"not JSON", "{", nil, 400, "not valid JSON"},
		{"wrong type", withData(func(m, _ map[string]any) { m["LocationId"] = 12 }), nil, 400, "LocationId: must be a JSON string"},
		{"over 1 MiB", `{"Message": "` + strings.Repeat("x", 1<<20) + `"}`, nil, 413, "larger than 1048576 bytes"},
		{"no action", withData(func(m, _ map[string]any) { delete(m, "Action") }), nil, 400, "Action must be Transaction"},
		{"no location", withData(func(m, _ map[string]any) { m["LocationId"] = nil }), nil, 400, "LocationId is required"},
		{"no device", withData(func(m, _ map[string]any) { m["DeviceName"] = "" }), nil, 400, "DeviceName is required"},
		{"no data", withData(func(m, _ map[string]any) { delete(m, "Data") }), nil, 400, "Data is required"},
		{"unknown type", withData(func(_, d map[string]any) { d["TransactionType"] = "DebitSale" }), nil, 400, "Data.TransactionType"},
		{"no amount", withData(func(_, d map[string]any) { d["Amount"] = nil }), nil, 400, "Data.Amount is required"},
		{"three decimals", withData(func(_, d map[string]any) { d["Amount"] = "1.005" }), nil, 400, "Data.Amount"},
		{"zero amount", withData(func(_, d map[string]any) { d["Amount"] = "0.00" }), nil, 400, "between 0.01"},
		{"void without ref", withData(func(_, d map[string]any) { d["TransactionType"] = "Void" }), nil, 400, "Data.UniqueTransRef is required for Void"},
		{"tip without ref", withData(func(_, d map[string]any) { d["TransactionType"] = "CreditAddTip" }), nil, 400, "Data.UniqueTransRef is required"},
		{"long reference", withData(func(_, d map[string]any) { d["TransactionRef"] = strings.Repeat("x", 51) }), nil, 400, "at most 50"},
		{"test mode false", withData(func(m, _ map[string]any) { m["TestMode"] = false }), nil, 400, "send TestMode true"},
		{"unknown location", withData(func(m, _ map[string]any) { m["LocationId"] = "AAA-BBB-CCC" }), nil, 404, "Location"},
		{"unknown device", withData(func(m, _ map[string]any) { m["DeviceName"] = "NOPE" }), nil, 404, "Device \"NOPE\" was not found"},
		{"wrong key", withData(func(_, _ map[string]any) {}), []string{"x-apikey", "sbx_term_wrong"}, 401, "API key"},
		{"form body", "a=b", []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, "application/json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			headers := append([]string{"Content-Type", "application/json"}, tc.header...)
			a := h.do(t, http.MethodPost, "/transaction.json", tc.body, headers...)
			env := a.json(t)
			msg, _ := env["Error"].(map[string]any)["Message"].(string)
			if a.status != tc.status || env["Success"] != false || !strings.Contains(msg, tc.want) {
				t.Errorf("%d %s, want %d with %q", a.status, a.body, tc.status, tc.want)
			}
			if strings.Contains(msg, "json:") || strings.Contains(msg, "Go struct") || strings.Contains(msg, "invalid character") {
				t.Errorf("the refusal quotes Go's decoder: %q", msg)
			}
		})
	}
	// Nothing was launched: the device is free.
	uniqueID(t, h.launch(t, "EMULATOR", "CreditSale", "1.00", "", ""))
}

func TestLenientTypes(t *testing.T) {
	h := newHarness(t)
	body := launchBody(h.location(), "EMULATOR", "CreditSale", "", "INV-9", "")
	body["TestMode"] = "true"
	body["Data"].(map[string]any)["Amount"] = 12.5
	id := uniqueID(t, h.do(t, http.MethodPost, "/transaction.json", body, "Content-Type", "application/json"))
	h.clock.Advance(3 * time.Second)
	if r := h.result(t, id); r["AmountProcessed"] != 12.5 {
		t.Errorf("AmountProcessed = %v", r["AmountProcessed"])
	}
}

func TestResultReads(t *testing.T) {
	h := newHarness(t)
	id := uniqueID(t, h.launch(t, "EMULATOR", "CreditSale", "10.00", "", ""))
	if a := h.do(t, http.MethodGet, "/transactionresult/ffffffffffffffffffffffffffffffff", nil); a.status != 404 || a.json(t)["Status"] != "NotFound" {
		t.Errorf("unknown id: %d %s", a.status, a.body)
	}
	h.clock.Advance(3 * time.Second)
	if a := h.do(t, http.MethodGet, "/transactionresult/"+id, nil, "x-apikey", "wrong"); a.status != 401 {
		t.Errorf("wrong key: %d", a.status)
	}
	if a := h.do(t, http.MethodGet, "/transactionresult/"+id, nil, "x-apikey", h.creds.APIKey); a.status != 200 {
		t.Errorf("right key: %d", a.status)
	}
}

func TestInjectedFaults(t *testing.T) {
	h := newHarness(t)
	h.faults.FailNext("terminals", http.StatusServiceUnavailable)
	a := h.launch(t, "EMULATOR", "CreditSale", "10.00", "", "")
	if a.status != 503 || a.header.Get("Retry-After") != "1" || !strings.Contains(string(a.body), "injected fault") {
		t.Errorf("injected 503: %d %v %s", a.status, a.header, a.body)
	}
	// Act, then drop: the launch happens, the answer is lost.
	h.faults.FailNext("terminals", -1)
	req, _ := http.NewRequest(http.MethodPost, h.srv.URL+"/transaction.json",
		strings.NewReader(`{"Action":"Transaction","TestMode":true,"LocationId":"`+h.location()+`","DeviceName":"EMULATOR","Data":{"TransactionType":"CreditSale","Amount":"10.00"}}`))
	if resp, err := http.DefaultClient.Do(req); err == nil {
		_ = resp.Body.Close()
		t.Fatalf("act-then-drop answered %d", resp.StatusCode)
	}
	txs := h.admin(t, http.MethodGet, "/transactions", nil).body
	if strings.Count(string(txs), `"uniqueTransId"`) != 1 {
		t.Errorf("transactions after act-then-drop = %s, want one", txs)
	}
	// The device runs it: a new launch is refused as busy.
	if a := h.launch(t, "EMULATOR", "CreditSale", "10.00", "", ""); a.status != http.StatusConflict {
		t.Errorf("after a dropped launch: %d %s", a.status, a.body)
	}
}
