package partnerapi_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/drafts"
)

// TestBadInputAnswersProblems sends what a careless or hostile client would: every
// answer is a problem document with a 4xx status, never a 500, naming the value at fault.
func TestBadInputAnswersProblems(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	id := h.newApplication(t, nil)
	etag := h.etagOf(t, id)
	app := "/api/v1/applications/" + id
	patch := func(body any) request {
		return request{key: keyRep, method: http.MethodPatch, path: app, body: body, contentType: "application/merge-patch+json",
			header: map[string]string{"If-Match": etag}, malformed: true}
	}
	create := func(body any) request {
		return request{key: keyRep, method: http.MethodPost, path: "/api/v1/applications", body: body, malformed: true}
	}
	cases := []struct {
		name    string
		req     request
		status  int
		code    string
		pointer string
	}{
		{"malformed JSON", create(`{"business": {"legalName": "x"`), 400, "malformed_request", ""},
		{"not an object", create(`["business"]`), 400, "malformed_request", ""},
		{"two values", create(`{} {}`), 400, "malformed_request", ""},
		{"empty body", create(``), 400, "malformed_request", ""},
		{"wrong type: number for text", create(`{"business": {"legalName": 12}}`), 422, "validation_failed", "/business/legalName"},
		{"wrong type: text for a yes or no", create(`{"bank": {"fromMerchant": "yes"}}`), 422, "validation_failed", "/bank/fromMerchant"},
		{"wrong type: object for a list", create(`{"owners": {"firstName": "Jane"}}`), 422, "validation_failed", "/owners"},
		{"wrong type: text for an object", create(`{"business": "Blue Fern"}`), 422, "validation_failed", "/business"},
		{"unknown field", create(`{"business": {"legalNmae": "Blue Fern"}}`), 422, "validation_failed", "/business/legalNmae"},
		{"unknown top-level field", create(`{"merchantName": "Blue Fern"}`), 422, "validation_failed", "/merchantName"},
		{"a read-only field", create(`{"business": {"tinLast4": "6789"}}`), 422, "validation_failed", "/business/tinLast4"},
		{"unknown owner field", create(`{"owners": [{"socialSecurity": "1"}]}`), 422, "validation_failed", "/owners/0/socialSecurity"},
		{"NUL byte", create(`{"business": {"legalName": "Blue\u0000Fern"}}`), 422, "validation_failed", "/business/legalName"},
		{"raw NUL byte", create("{\"notes\": \"a\x00b\"}"), 400, "malformed_request", ""},
		{"invalid UTF-8", create("{\"notes\": \"caf\xe9\"}"), 400, "malformed_request", ""},
		{"a value the page refuses", create(`{"business": {"email": "not an address"}}`), 422, "validation_failed", "/business/email"},
		{"an SSN the page refuses", create(`{"owners": [{"ssn": "000-12-3456"}]}`), 422, "validation_failed", "/owners/0/ssn"},
		{"an unknown pricing model", create(`{"pricingModelId": "8f0e7a39-7d5e-4f7c-9f0e-6b2f5a0c1d2e"}`), 422, "validation_failed", "/pricingModelId"},
		{"not an id", create(`{"pricingModelId": "basic"}`), 422, "validation_failed", "/pricingModelId"},
		{"too many owners", create(`{"owners": [` + strings.Repeat(`{},`, 10) + `{}]}`), 422, "validation_failed", "/owners"},
		{"huge body", create(`{"notes": "` + strings.Repeat("x", 300<<10) + `"}`), 413, "request_too_large", ""},
		{"deep nesting", create(strings.Repeat(`{"business":`, 5000) + `{}` + strings.Repeat(`}`, 5000)), 422, "validation_failed", "/business/business"},
		{"wrong media type", request{key: keyRep, method: http.MethodPost, path: "/api/v1/applications", body: `{}`, contentType: "text/plain", malformed: true}, 415, "unsupported_media_type", ""},
		{"owner set on update", patch(`{"ownerId": "8f0e7a39-7d5e-4f7c-9f0e-6b2f5a0c1d2e"}`), 422, "validation_failed", "/ownerId"},
		{"an owner id not of this application", patch(`{"owners": [{"id": "8f0e7a39-7d5e-4f7c-9f0e-6b2f5a0c1d2e"}]}`), 422, "validation_failed", "/owners/0/id"},
		{"missing If-Match", request{key: keyRep, method: http.MethodPatch, path: app, body: `{"notes": "x"}`, contentType: "application/merge-patch+json", malformed: true}, 428, "precondition_required", ""},
		{"stale If-Match", request{key: keyRep, method: http.MethodPatch, path: app, body: `{"notes": "x"}`, contentType: "application/merge-patch+json", header: map[string]string{"If-Match": `"99"`}}, 412, "precondition_failed", ""},
		{"garbled If-Match", request{key: keyRep, method: http.MethodPatch, path: app, body: `{"notes": "x"}`, contentType: "application/merge-patch+json", header: map[string]string{"If-Match": `W/"1"`}}, 412, "precondition_failed", ""},
		{"bad idempotency key", request{key: keyRep, method: http.MethodPost, path: "/api/v1/applications", body: `{}`, header: map[string]string{"Idempotency-Key": "a b"}, malformed: true}, 400, "malformed_request", ""},
		{"bad limit", request{key: keyRep, method: http.MethodGet, path: "/api/v1/applications?limit=0", malformed: true}, 400, "malformed_request", ""},
		{"bad state", request{key: keyRep, method: http.MethodGet, path: "/api/v1/applications?state=approved", malformed: true}, 400, "malformed_request", ""},
		{"bad time", request{key: keyRep, method: http.MethodGet, path: "/api/v1/applications?updatedSince=yesterday", malformed: true}, 400, "malformed_request", ""},
		{"bad cursor", request{key: keyRep, method: http.MethodGet, path: "/api/v1/applications?cursor=%00%01", malformed: true}, 400, "malformed_request", ""},
		{"not an id in the path", request{key: keyRep, method: http.MethodGet, path: "/api/v1/applications/123", malformed: true}, 404, "not_found", ""},
		{"a method the path does not offer", request{key: keyRep, method: http.MethodPut, path: app, body: `{}`, malformed: true}, 404, "not_found", ""},
		{"unknown path", request{key: keyRep, method: http.MethodGet, path: "/api/v1/nothing", malformed: true}, 404, "not_found", ""},
		{"no key", request{method: http.MethodGet, path: "/api/v1/applications"}, 401, "unauthenticated", ""},
		{"a garbled key", request{method: http.MethodGet, path: "/api/v1/applications", header: map[string]string{"Authorization": "Bearer ppk_abcdefgh_not-a-key"}}, 401, "unauthenticated", ""},
		{"a document of another type", request{key: keyRep, method: http.MethodPost, path: app + "/documents", body: "--x\r\nContent-Disposition: form-data; name=\"type\"\r\n\r\nselfie\r\n--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.pdf\"\r\n\r\n%PDF-1.4\r\n--x--\r\n", contentType: "multipart/form-data; boundary=x", malformed: true}, 422, "validation_failed", "/type"},
		{"a document that is not a document", request{key: keyRep, method: http.MethodPost, path: app + "/documents", body: "--x\r\nContent-Disposition: form-data; name=\"type\"\r\n\r\nbank_statement\r\n--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.pdf\"\r\n\r\nMZ\x90\x00 not a pdf\r\n--x--\r\n", contentType: "multipart/form-data; boundary=x", malformed: true}, 422, "validation_failed", "/file"},
		{"a broken multipart body", request{key: keyRep, method: http.MethodPost, path: app + "/documents", body: "--x\r\nContent-Disposition: form-data; name=\"type\"\r\n\r\nbank_statement", contentType: "multipart/form-data; boundary=x", malformed: true}, 400, "malformed_request", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := h.do(t, c.req)
			if res.Status != c.status {
				t.Fatalf("%d, want %d\n%s", res.Status, c.status, res.Body)
			}
			if ct := res.Header.Get("Content-Type"); ct != "application/problem+json" {
				t.Fatalf("content type %q", ct)
			}
			p := res.JSON(t)
			if p["code"] != c.code || p["status"] != float64(c.status) || p["requestId"] == "" || p["requestId"] == nil {
				t.Fatalf("problem %s", res.Body)
			}
			if c.pointer != "" {
				var pointers []string
				for _, e := range p["errors"].([]any) {
					pointers = append(pointers, e.(map[string]any)["pointer"].(string))
				}
				if !slices.Contains(pointers, c.pointer) {
					t.Fatalf("pointers %q, want %q", pointers, c.pointer)
				}
			}
		})
	}
}

// TestRefusedFieldsSpeakAsThePage: a refused value answers the message the page shows
// beside the field.
func TestRefusedFieldsSpeakAsThePage(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	res := h.do(t, request{key: keyRep, method: http.MethodPost, path: "/api/v1/applications", malformed: true,
		body: map[string]any{"business": map[string]any{"email": "not an address", "mcc": "12"}, "owners": []any{map[string]any{"dateOfBirth": "2999-01-01"}}}})
	if res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	got := map[string]string{}
	for _, e := range res.JSON(t)["errors"].([]any) {
		m := e.(map[string]any)
		got[m["pointer"].(string)] = m["detail"].(string)
	}
	page := pageMessages(t, h)
	for ptr, field := range map[string]string{"/business/email": "business.email", "/business/mcc": "business.mcc", "/owners/0/dateOfBirth": "owners.0.date_of_birth"} {
		if got[ptr] == "" || got[ptr] != page[field] {
			t.Errorf("%s: API says %q, the page says %q", ptr, got[ptr], page[field])
		}
	}
	// Nothing was stored.
	var n int
	if err := h.env.DB.Pool.QueryRow(t.Context(), `SELECT count(*) FROM applications`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d applications stored (%v)", n, err)
	}
}

// pageMessages are the drafts' messages for the same values, as the workspace's save
// would show them.
func pageMessages(t *testing.T, _ *harness) map[string]string {
	t.Helper()
	d := drafts.Draft{Business: drafts.Business{Email: "not an address", MCC: "12"}, Owners: []drafts.Owner{{DateOfBirth: "2999-01-01"}}}
	return d.Validate(time.Now())
}
