package terminals_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// resultFields are every field of the specification's result object.
var resultFields = []string{
	"ComputerName", "ApplicationKey", "RemoteDeviceID", "RemoteTransactionId", "DeviceName", "Version",
	"ResultStatus", "ResultMessage", "TransactionType", "ApprovalNumberResult", "BatchNumber", "DeviceBatchNumber",
	"BillingName", "AVSResponseCode", "AVSResponseText", "CVVResponseCode", "CVVResponseText", "AmountBalance",
	"AmountProcessed", "AmountAdjusted", "AmountTipped", "AdjustmentTypeId", "AccountCardType", "AccountExpiryDate",
	"MaskedAccount", "AccountEntryMethod", "UniqueTransID", "TransactionID", "ExternalTransactionID",
	"TransactionReference", "Cashier", "FromLogFile", "CreatedOn", "TerminalDateTime", "ComputerDateTime",
	"ComputerTimeZoneOffset", "SerialNumber", "EmvReceipt",
}

var (
	hex32     = regexp.MustCompile(`^[0-9a-f]{32}$`)
	localTime = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}$`)
	cloudDate = regexp.MustCompile(`^/Date\(\d+-0000\)/$`)
)

// TestPublicClientShape drives the sandbox exactly as the public C#
// client does: the launch body with every property, only Content-Type on
// the launch and the result read, the id read from the launch answer, then
// the result read until it is there.
func TestPublicClientShape(t *testing.T) {
	h := newHarness(t)
	body := fmt.Sprintf(`{"Action":"Transaction","TestMode":true,"Message":null,"LocationId":%q,"DeviceName":"EMULATOR",`+
		`"Data":{"TransactionType":"CreditSale","Amount":"10.00","TransactionRef":"INV-1001.1","Cashier":"Ann","UniqueTransRef":null}}`, h.location())
	a := h.do(t, http.MethodPost, "/transaction.json", body, "Content-Type", "application/json")
	id := uniqueID(t, a)
	if env := a.json(t); env["Success"] != true || env["Status"] != "Success" || env["StatusCode"] != 200.0 {
		t.Errorf("launch envelope = %s", a.body)
	}
	if !hex32.MatchString(id) {
		t.Errorf("UniqueTransId = %q, want 32 hex digits", id)
	}

	// Not there until the cardholder has finished: 200, Success false, Pending.
	p := h.do(t, http.MethodGet, "/transactionresult/"+id, nil, "Content-Type", "application/json")
	if env := p.json(t); p.status != http.StatusOK || env["Success"] != false || env["Status"] != "Pending" {
		t.Fatalf("before the cardholder: %d %s", p.status, p.body)
	}
	h.clock.Advance(3 * time.Second)
	r := h.result(t, id)
	for _, f := range resultFields {
		if _, ok := r[f]; !ok {
			t.Errorf("result lacks %s", f)
		}
	}
	checks := map[string]any{
		"ResultStatus": "true", "ResultMessage": "APPROVED", "TransactionType": "CreditSale", "UniqueTransID": id,
		"RemoteTransactionId": id, "AmountProcessed": 10.0, "AmountTipped": 0.0, "TransactionReference": "INV-1001.1",
		"Cashier": "Ann", "MaskedAccount": "************4223", "AccountEntryMethod": "Chipped", "DeviceName": "EMULATOR",
		"FromLogFile": false, "ComputerTimeZoneOffset": -5.0, "AccountExpiryDate": "1230", "SerialNumber": "",
	}
	for k, want := range checks {
		if r[k] != want {
			t.Errorf("%s = %#v, want %#v", k, r[k], want)
		}
	}
	for _, k := range []string{"CreatedOn", "TerminalDateTime", "ComputerDateTime"} {
		if s, _ := r[k].(string); !localTime.MatchString(s) {
			t.Errorf("%s = %q, want a zone-less local timestamp", k, s)
		}
	}
	// Ready 3 s after 14:00:00 UTC, written at UTC-5.
	if r["CreatedOn"] != "2026-03-02T09:00:03.0000000" {
		t.Errorf("CreatedOn = %v", r["CreatedOn"])
	}
	emv, _ := r["EmvReceipt"].(map[string]any)
	for _, f := range []string{"CreatedOn", "AuthorizationMode", "CurrencyIndicator", "AID", "TVR", "IAD", "TSI", "ARC", "CardHolderVerificationMethod", "EMVOfflineData"} {
		if _, ok := emv[f].(string); !ok {
			t.Errorf("EmvReceipt.%s missing or not a string: %v", f, emv)
		}
	}
	if approval, _ := r["ApprovalNumberResult"].(string); len(approval) != 6 {
		t.Errorf("ApprovalNumberResult = %q", approval)
	}
}

func TestConfigDownload(t *testing.T) {
	h := newHarness(t)
	path := "/Config/" + h.location()
	for _, tc := range []struct {
		name   string
		key    string
		path   string
		status int
	}{
		{"no key", "", path, http.StatusUnauthorized},
		{"wrong key", "sbx_term_wrong", path, http.StatusUnauthorized},
		{"unknown location", h.creds.APIKey, "/Config/AAA-BBB-CCC", http.StatusNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := h.do(t, http.MethodGet, tc.path, nil, "Content-Type", "application/json", "x-apikey", tc.key)
			env := a.json(t)
			msg, _ := env["Error"].(map[string]any)
			if a.status != tc.status || env["Success"] != false || env["StatusCode"] != float64(tc.status) || msg["Message"] == "" {
				t.Errorf("%d %s, want a %d error envelope", a.status, a.body, tc.status)
			}
		})
	}

	// Another merchant's location is as unknown as a missing one.
	other, err := h.area.Provision(context.Background(), kit.Merchant{ApplicationID: "app-2", Name: "Other"})
	if err != nil {
		t.Fatal(err)
	}
	if a := h.do(t, http.MethodGet, "/Config/"+other.Locations[0].LocationID, nil, "x-apikey", h.creds.APIKey); a.status != http.StatusNotFound {
		t.Errorf("other merchant's location: %d", a.status)
	}

	a := h.do(t, http.MethodGet, path, nil, "Content-Type", "application/json", "x-apikey", h.creds.APIKey)
	if a.status != http.StatusOK {
		t.Fatalf("config: %d %s", a.status, a.body)
	}
	cfg := a.json(t)["Result"].(map[string]any)
	id, _ := cfg["Id"].(string)
	if !hex32.MatchString(id) || cfg["LocationId"] != h.location() || cfg["IsActive"] != true {
		t.Errorf("config = %v", cfg)
	}
	if _, ok := cfg["LocationKey"].(float64); !ok {
		t.Errorf("LocationKey = %#v, want an integer", cfg["LocationKey"])
	}
	for _, k := range []string{"ControllerName", "Level2Enabled", "UseShortUniqueTransId"} {
		if _, ok := cfg[k]; !ok {
			t.Errorf("config lacks %s", k)
		}
	}
	for _, k := range []string{"CreatedOn", "LastHeartbeat"} {
		if s, _ := cfg[k].(string); !cloudDate.MatchString(s) {
			t.Errorf("%s = %q", k, s)
		}
	}
	devices := cfg["Devices"].([]any)
	if len(devices) != 3 {
		t.Fatalf("devices = %d, want an emulator and two terminals", len(devices))
	}
	types := []string{}
	for _, raw := range devices {
		d := raw.(map[string]any)
		types = append(types, d["DeviceType"].(string))
		if d["RemoteConfigId"] != id || d["TcpPort"] != "10009" {
			t.Errorf("device %v: RemoteConfigId must be the config's Id and TcpPort a string", d)
		}
		_, hasSerial := d["SerialNumber"]
		if hasSerial == (d["DeviceType"] == "Emulator") {
			t.Errorf("device %v: SerialNumber must be absent exactly on emulators", d["DeviceName"])
		}
		for _, k := range []string{"Id", "DeviceName", "IpAddress", "RequestSignature", "MandatorySignature", "IsDefault",
			"UseTokenArmor", "PromptForTipOnTerminal", "IsActive", "CreatedOn", "IsDeleted"} {
			if _, ok := d[k]; !ok {
				t.Errorf("device lacks %s", k)
			}
		}
	}
	if strings.Join(types, ",") != "Emulator,S300,D210" {
		t.Errorf("device types = %v", types)
	}

	// The heartbeat moves with the clock.
	before := cfg["LastHeartbeat"]
	h.clock.Advance(time.Minute)
	after := h.do(t, http.MethodGet, path, nil, "x-apikey", h.creds.APIKey).json(t)["Result"].(map[string]any)["LastHeartbeat"]
	if before == after {
		t.Errorf("LastHeartbeat did not move: %v", after)
	}
}

func TestProvisionIsIdempotent(t *testing.T) {
	h := newHarness(t)
	again, err := h.area.Provision(context.Background(), kit.Merchant{ApplicationID: "app-1", Name: "Corner Cafe"})
	if err != nil {
		t.Fatal(err)
	}
	if again.APIKey != h.creds.APIKey || len(again.Locations) != 1 || again.Locations[0] != h.creds.Locations[0] {
		t.Errorf("repeat = %+v, want %+v", again, h.creds)
	}
	if h.creds.Locations[0].Name != "Corner Cafe" {
		t.Errorf("location name = %q", h.creds.Locations[0].Name)
	}
	if !regexp.MustCompile(`^[A-Z2-9]{3}-[A-Z2-9]{3}-[A-Z2-9]{3}$`).MatchString(h.location()) {
		t.Errorf("location id = %q, want a code like YZM-5B5-RAC", h.location())
	}
	if _, err := h.area.Provision(context.Background(), kit.Merchant{}); err == nil {
		t.Error("provision without an application id succeeded")
	}
}
