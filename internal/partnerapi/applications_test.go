package partnerapi_test

import (
	"net/http"
	"strings"
	"testing"
)

func TestCreateReadUpdate(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	res := h.do(t, request{key: keyRep, method: http.MethodPost, path: "/api/v1/applications", body: map[string]any{
		"business": map[string]any{"legalName": "Blue Fern LLC", "tin": "12-3456789", "address": map[string]any{"city": "Oakland"}},
		"owners":   []any{map[string]any{"firstName": "Jane", "ssn": "234-56-6789", "isControlPerson": true}},
		"notes":    "from the vendor",
	}})
	if res.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	app := res.JSON(t)
	biz := app["business"].(map[string]any)
	if biz["legalName"] != "Blue Fern LLC" || biz["tinLast4"] != "6789" || biz["tin"] != nil || app["ownerId"] != h.repA.ID.String() {
		t.Fatalf("created %s", res.Body)
	}
	if strings.Contains(string(res.Body), "123-45") || strings.Contains(string(res.Body), "12-345") {
		t.Fatalf("a write-only number came back: %s", res.Body)
	}
	owner := app["owners"].([]any)[0].(map[string]any)
	if owner["ssnLast4"] != "6789" || owner["firstName"] != "Jane" {
		t.Fatalf("owner %v", owner)
	}
	id := app["id"].(string)
	etag := res.Header.Get("ETag")
	if etag != `"1"` || res.Header.Get("Location") != "/api/v1/applications/"+id {
		t.Fatalf("headers %v", res.Header)
	}

	// A merge patch: a field set, one cleared, the owner matched by id keeps its SSN.
	res = h.do(t, request{key: keyRep, method: http.MethodPatch, path: "/api/v1/applications/" + id, contentType: "application/merge-patch+json",
		header: map[string]string{"If-Match": etag},
		body: map[string]any{"business": map[string]any{"dba": "Blue Fern", "address": map[string]any{"city": nil}},
			"owners": []any{map[string]any{"id": owner["id"], "lastName": "Doe"}}}})
	if res.Status != http.StatusOK {
		t.Fatalf("patch: %d %s", res.Status, res.Body)
	}
	app = res.JSON(t)
	biz = app["business"].(map[string]any)
	owner = app["owners"].([]any)[0].(map[string]any)
	if biz["dba"] != "Blue Fern" || biz["address"].(map[string]any)["city"] != "" || owner["ssnLast4"] != "6789" || owner["lastName"] != "Doe" || owner["firstName"] != "Jane" {
		t.Fatalf("patched %s", res.Body)
	}
	if res.Header.Get("ETag") != `"2"` {
		t.Fatalf("etag %q", res.Header.Get("ETag"))
	}
	// The old ETag is stale now.
	res = h.do(t, request{key: keyRep, method: http.MethodPatch, path: "/api/v1/applications/" + id, contentType: "application/merge-patch+json",
		header: map[string]string{"If-Match": etag}, body: map[string]any{"notes": "x"}})
	if res.Status != http.StatusPreconditionFailed {
		t.Fatalf("stale patch: %d %s", res.Status, res.Body)
	}
	res = h.do(t, request{key: keyRep, method: http.MethodGet, path: "/api/v1/applications/" + id})
	if res.Status != http.StatusOK || res.JSON(t)["notes"] != "from the vendor" {
		t.Fatalf("read: %d %s", res.Status, res.Body)
	}
}

// TestHandedOffApplicationKeepsItsNotesWritable: once handed off, only the internal
// notes change, as on the page; the rest is 409, and documents and submission too.
func TestHandedOffApplicationKeepsItsNotesWritable(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	a, _ := h.linkedApplication(t, h.repA, "Maple Florist")
	path := "/api/v1/applications/" + a.ID.String()
	patch := func(body map[string]any) response {
		return h.do(t, request{key: keyRep, method: http.MethodPatch, path: path, contentType: "application/merge-patch+json",
			header: map[string]string{"If-Match": h.etagOf(t, a.ID.String())}, body: body})
	}
	if res := patch(map[string]any{"notes": "called the merchant"}); res.Status != http.StatusOK || res.JSON(t)["notes"] != "called the merchant" {
		t.Fatalf("notes: %d %s", res.Status, res.Body)
	}
	if res := patch(map[string]any{"business": map[string]any{"dba": "Maple"}}); res.Status != http.StatusConflict {
		t.Fatalf("business: %d %s", res.Status, res.Body)
	}
	body, ct := uploadBody(t, "bank_statement", 5)
	if res := h.do(t, request{key: keyRep, method: http.MethodPost, path: path + "/documents", body: body, contentType: ct}); res.Status != http.StatusConflict {
		t.Fatalf("upload: %d %s", res.Status, res.Body)
	}
	if res := h.do(t, request{key: keyRep, method: http.MethodPost, path: path + "/submit"}); res.Status != http.StatusConflict {
		t.Fatalf("submit: %d %s", res.Status, res.Body)
	}
	res := h.do(t, request{key: keyRep, method: http.MethodGet, path: path + "/handoff"})
	if res.Status != http.StatusOK || res.JSON(t)["state"] != "linked" || res.JSON(t)["link"] == nil {
		t.Fatalf("handoff: %d %s", res.Status, res.Body)
	}
}
