package partnerapi_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// matrixFixture is what the authorization matrix reads: rep A's application, merchant
// and sale.
type matrixFixture struct {
	app, merchant, sale string
}

// operation is one operation of the document as the matrix calls it.
type operation struct {
	id     string
	method string
	write  bool
	// object: the operation reaches one of rep A's objects (another rep gets 404).
	object bool
	// public: no key is needed (revoked keys are not even read).
	public bool
	// allowed is the status when the key may do it (on fresh objects for writes).
	allowed int
	// build returns the request's path, body and content type for a key kind; writes
	// make their own objects, so each call starts afresh.
	build func(t *testing.T, h *harness, f matrixFixture, kind string) (string, any, string, map[string]string)
	// listed, for a list, is what must not appear for another rep's key.
	listed func(f matrixFixture) string
}

func get(path func(f matrixFixture) string) func(*testing.T, *harness, matrixFixture, string) (string, any, string, map[string]string) {
	return func(_ *testing.T, _ *harness, f matrixFixture, _ string) (string, any, string, map[string]string) {
		return path(f), nil, "", nil
	}
}

func matrixOperations() []operation {
	app := func(suffix string) func(f matrixFixture) string {
		return func(f matrixFixture) string { return "/api/v1/applications/" + f.app + suffix }
	}
	return []operation{
		{id: "getOpenAPI", method: http.MethodGet, public: true, allowed: http.StatusOK, build: get(func(matrixFixture) string { return "/api/v1/openapi.json" })},
		{id: "listPricingModels", method: http.MethodGet, allowed: http.StatusOK, build: get(func(matrixFixture) string { return "/api/v1/pricing-models" })},
		{id: "listApplications", method: http.MethodGet, allowed: http.StatusOK, build: get(func(matrixFixture) string { return "/api/v1/applications?limit=100" }),
			listed: func(f matrixFixture) string { return f.app }},
		{id: "createApplication", method: http.MethodPost, write: true, allowed: http.StatusCreated,
			build: func(_ *testing.T, h *harness, _ matrixFixture, kind string) (string, any, string, map[string]string) {
				body := map[string]any{"notes": "made by the matrix"}
				if kind == keyReseller {
					body["ownerId"] = h.repA.ID.String()
				}
				return "/api/v1/applications", body, "", nil
			}},
		{id: "getApplication", method: http.MethodGet, object: true, allowed: http.StatusOK, build: get(app(""))},
		{id: "updateApplication", method: http.MethodPatch, write: true, object: true, allowed: http.StatusOK,
			build: func(t *testing.T, h *harness, _ matrixFixture, _ string) (string, any, string, map[string]string) {
				id := h.newApplication(t, nil)
				return "/api/v1/applications/" + id, map[string]any{"notes": "changed"}, "application/merge-patch+json",
					map[string]string{"If-Match": h.etagOf(t, id)}
			}},
		{id: "getChecklist", method: http.MethodGet, object: true, allowed: http.StatusOK, build: get(app("/checklist"))},
		{id: "submitApplication", method: http.MethodPost, write: true, object: true, allowed: http.StatusUnprocessableEntity,
			build: func(t *testing.T, h *harness, _ matrixFixture, _ string) (string, any, string, map[string]string) {
				return "/api/v1/applications/" + h.newApplication(t, nil) + "/submit", nil, "", nil
			}},
		{id: "getSubmission", method: http.MethodGet, object: true, allowed: http.StatusOK, build: get(app("/submission"))},
		{id: "listDocuments", method: http.MethodGet, object: true, allowed: http.StatusOK, build: get(app("/documents"))},
		{id: "uploadDocument", method: http.MethodPost, write: true, object: true, allowed: http.StatusCreated,
			build: func(t *testing.T, h *harness, _ matrixFixture, _ string) (string, any, string, map[string]string) {
				body, ct := uploadBody(t, "bank_statement", 7)
				return "/api/v1/applications/" + h.newApplication(t, nil) + "/documents", body, ct, nil
			}},
		{id: "deleteDocument", method: http.MethodDelete, write: true, object: true, allowed: http.StatusNoContent,
			build: func(t *testing.T, h *harness, _ matrixFixture, _ string) (string, any, string, map[string]string) {
				id := h.newApplication(t, nil)
				return "/api/v1/applications/" + id + "/documents/" + h.newDocument(t, id), nil, "", nil
			}},
		{id: "getHandoff", method: http.MethodGet, object: true, allowed: http.StatusOK, build: get(app("/handoff"))},
		{id: "resendHandoff", method: http.MethodPost, write: true, object: true, allowed: http.StatusConflict,
			build: func(t *testing.T, h *harness, _ matrixFixture, _ string) (string, any, string, map[string]string) {
				return "/api/v1/applications/" + h.newApplication(t, nil) + "/handoff/resend", nil, "", nil
			}},
		{id: "listMerchants", method: http.MethodGet, allowed: http.StatusOK, build: get(func(matrixFixture) string { return "/api/v1/merchants?limit=100" }),
			listed: func(f matrixFixture) string { return f.merchant }},
		{id: "getMerchant", method: http.MethodGet, object: true, allowed: http.StatusOK,
			build: get(func(f matrixFixture) string { return "/api/v1/merchants/" + f.merchant })},
		{id: "listTransactions", method: http.MethodGet, object: true, allowed: http.StatusOK,
			build: get(func(f matrixFixture) string { return "/api/v1/merchants/" + f.merchant + "/transactions" })},
		{id: "getTransaction", method: http.MethodGet, object: true, allowed: http.StatusOK,
			build: get(func(f matrixFixture) string { return "/api/v1/merchants/" + f.merchant + "/transactions/" + f.sale })},
	}
}

// expected is the status an operation answers a key kind.
func (op operation) expected(kind string) int {
	switch {
	case op.public:
		return op.allowed
	case kind == keyRevoked:
		return http.StatusUnauthorized
	case kind == keyReadOnly && op.write:
		return http.StatusForbidden
	case kind == keyOtherRep && op.object:
		return http.StatusNotFound
	}
	return op.allowed
}

// TestAuthorizationMatrix calls every operation of the document with every kind of key:
// another rep's object is 404 (and absent from lists), a read-only key writing is 403,
// a revoked key is 401 from the moment it is revoked.
func TestAuthorizationMatrix(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	f := matrixFixture{app: h.newApplication(t, nil)}
	h.newDocument(t, f.app)
	merchant, sale := h.boardedMerchant(t, h.repA, "Corner Bakery")
	f.merchant, f.sale = merchant.String(), sale.String()

	ops := matrixOperations()
	var covered []string
	for _, op := range ops {
		covered = append(covered, op.id)
	}
	for _, item := range h.validations.doc.Paths.InMatchingOrder() {
		for method, o := range h.validations.doc.Paths.Value(item).Operations() {
			if !slices.Contains(covered, o.OperationID) {
				t.Errorf("%s %s (%s) has no row in the authorization matrix", method, item, o.OperationID)
			}
		}
	}
	for _, op := range ops {
		for _, kind := range keyKinds {
			t.Run(op.id+"/"+strings.ReplaceAll(kind, " ", "_"), func(t *testing.T) {
				path, body, ct, header := op.build(t, h, f, kind)
				res := h.do(t, request{key: kind, method: op.method, path: path, body: body, contentType: ct, header: header})
				if want := op.expected(kind); res.Status != want {
					t.Fatalf("%s %s with the %s key: %d, want %d\n%s", op.method, path, kind, res.Status, want, res.Body)
				}
				if res.Status >= 400 && res.Header.Get("Content-Type") != "application/problem+json" {
					t.Fatalf("a refusal is not a problem document: %s", res.Header.Get("Content-Type"))
				}
				if op.listed != nil && res.Status == http.StatusOK {
					if shown := strings.Contains(string(res.Body), op.listed(f)); shown != (kind != keyOtherRep) {
						t.Fatalf("%s key: rep A's object listed = %v\n%s", kind, shown, res.Body)
					}
				}
			})
		}
	}
}
