package terminals_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/payportal/portal/internal/sandbox/kit"
	"github.com/payportal/portal/internal/sandbox/terminals"
)

// adminToken guards the test sandboxes' admin surface.
const adminToken = "admin-test-token"

// t0 is the start of every test's manual clock.
var t0 = time.Date(2026, 3, 2, 14, 0, 0, 0, time.UTC)

// harness is the area behind a real socket.
type harness struct {
	area   *terminals.Area
	srv    *httptest.Server
	clock  *kit.ManualClock
	faults *kit.Injector
	creds  kit.TerminalCredentials
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	store, err := kit.OpenStore("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	faults, err := kit.NewInjector(kit.Faults{}, 7)
	if err != nil {
		t.Fatal(err)
	}
	clock := kit.NewManualClock(t0)
	env := kit.Env{Clock: clock, Faults: faults, Store: store, Log: slog.New(slog.DiscardHandler), Admin: adminToken}
	area, err := terminals.New(env, terminals.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = area.Close() })
	mux := http.NewServeMux()
	area.Mount(mux)
	mux.HandleFunc("GET "+kit.StylesheetPath, kit.ServeStylesheet)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	creds, err := area.Provision(context.Background(), kit.Merchant{ApplicationID: "app-1", Name: "Corner Cafe"})
	if err != nil {
		t.Fatal(err)
	}
	return &harness{area: area, srv: srv, clock: clock, faults: faults, creds: creds}
}

// location is the provisioned location's id.
func (h *harness) location() string { return h.creds.Locations[0].LocationID }

// answer is a raw HTTP answer.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// json decodes the body into a generic map.
func (a answer) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(a.body, &m); err != nil {
		t.Fatalf("body %s: %v", a.body, err)
	}
	return m
}

// do sends a request with the given headers (name, value pairs).
func (h *harness) do(t *testing.T, method, path string, body any, headers ...string) answer {
	t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = bytes.NewBufferString(b)
	default:
		raw, _ := json.Marshal(b)
		r = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, h.srv.URL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, _ := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, header: resp.Header, body: raw}
}

// admin sends an admin JSON request.
func (h *harness) admin(t *testing.T, method, path string, body any) answer {
	t.Helper()
	return h.do(t, method, "/_sandbox/admin/api/terminals"+path, body, "Authorization", "Bearer "+adminToken, "Content-Type", "application/json")
}

// launch posts a launch in the public client's shape and returns the
// answer.
func (h *harness) launch(t *testing.T, device, typ, amount, ref, uniqueRef string) answer {
	t.Helper()
	return h.do(t, http.MethodPost, "/transaction.json", launchBody(h.location(), device, typ, amount, ref, uniqueRef), "Content-Type", "application/json")
}

// launchBody is a request as a C# client serialising every property sends
// it: unset strings are null.
func launchBody(loc, device, typ, amount, ref, uniqueRef string) map[string]any {
	null := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	return map[string]any{
		"Action": "Transaction", "TestMode": true, "Message": nil, "LocationId": loc, "DeviceName": device,
		"Data": map[string]any{"TransactionType": typ, "Amount": null(amount), "TransactionRef": null(ref),
			"Cashier": "Ann", "UniqueTransRef": null(uniqueRef)},
	}
}

// uniqueID reads the launch answer's Result.UniqueTransId.
func uniqueID(t *testing.T, a answer) string {
	t.Helper()
	if a.status != http.StatusOK {
		t.Fatalf("launch: %d %s", a.status, a.body)
	}
	res, _ := a.json(t)["Result"].(map[string]any)
	id, _ := res["UniqueTransId"].(string)
	if id == "" {
		t.Fatalf("launch answer without Result.UniqueTransId: %s", a.body)
	}
	return id
}

// result reads a result after the cardholder has finished.
func (h *harness) result(t *testing.T, id string) map[string]any {
	t.Helper()
	a := h.do(t, http.MethodGet, "/transactionresult/"+id, nil, "Content-Type", "application/json")
	env := a.json(t)
	if a.status != http.StatusOK || env["Success"] != true {
		t.Fatalf("result %s: %d %s", id, a.status, a.body)
	}
	return env["Result"].(map[string]any)
}
