package partnerapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/google/uuid"

	"github.com/payportal/portal/internal/apikeys"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/partnerapi"
	"github.com/payportal/portal/internal/testutil/apptest"
)

// harness is a running portal with an admin, two sales reps and a key of every kind.
type harness struct {
	env         *apptest.Env
	admin       *models.User
	repA, repB  *models.User
	keys        map[string]string // kind → secret
	keyIDs      map[string]uuid.UUID
	http        *http.Client
	validations *validator
}

// The kinds of key of the authorization matrix.
const (
	keyRep      = "rep-scoped"
	keyReseller = "reseller-wide"
	keyReadOnly = "read-only"
	keyRevoked  = "revoked"
	keyOtherRep = "other rep's"
)

var keyKinds = []string{keyRep, keyReseller, keyReadOnly, keyRevoked, keyOtherRep}

func newHarness(t *testing.T, opts ...apptest.Option) *harness {
	t.Helper()
	opts = append([]apptest.Option{apptest.WithEnv("PORTAL_UPSTREAM_WEBHOOK_TOKEN", webhookToken)}, opts...)
	env := apptest.New(t, opts...)
	h := &harness{env: env, keys: map[string]string{}, keyIDs: map[string]uuid.UUID{}}
	h.admin, _ = env.CreateUser(t, "admin@example.com", models.RoleAdmin)
	h.repA, _ = env.CreateUser(t, "rita@example.com", models.RoleSalesRep)
	h.repB, _ = env.CreateUser(t, "bob@example.com", models.RoleSalesRep)
	make := func(kind string, in apikeys.NewKey) {
		in.Name = kind + " key"
		k, secret, err := env.App.APIKeys.Create(context.Background(), h.admin, in)
		if err != nil {
			t.Fatalf("create %s key: %v", kind, err)
		}
		h.keys[kind], h.keyIDs[kind] = secret, k.ID
	}
	repA, repB := h.repA.ID.String(), h.repB.ID.String()
	make(keyRep, apikeys.NewKey{Scope: apikeys.ScopeRep, RepID: repA, Access: apikeys.AccessWrite})
	make(keyReseller, apikeys.NewKey{Scope: apikeys.ScopeReseller, Access: apikeys.AccessWrite})
	make(keyReadOnly, apikeys.NewKey{Scope: apikeys.ScopeRep, RepID: repA, Access: apikeys.AccessRead})
	make(keyRevoked, apikeys.NewKey{Scope: apikeys.ScopeRep, RepID: repA, Access: apikeys.AccessWrite})
	make(keyOtherRep, apikeys.NewKey{Scope: apikeys.ScopeRep, RepID: repB, Access: apikeys.AccessWrite})
	if _, err := env.App.APIKeys.Revoke(context.Background(), h.admin, h.keyIDs[keyRevoked]); err != nil {
		t.Fatal(err)
	}
	h.validations = newValidator(t)
	h.http = &http.Client{Transport: h.validations}
	return h
}

// response is an answer of the API, read.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the answer's body as an object.
func (r response) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("answer %d is not a JSON object: %v\n%s", r.Status, err, r.Body)
	}
	return m
}

// request is one call of the API.
type request struct {
	key, method, path string
	body              any // marshalled as JSON unless []byte or string
	contentType       string
	header            map[string]string
	// malformed marks a request that breaks the document on purpose: it is sent as is
	// and only its answer is checked against the document.
	malformed bool
}

func (h *harness) do(t testing.TB, r request) response {
	t.Helper()
	var body io.Reader = http.NoBody
	switch b := r.body.(type) {
	case nil:
	case []byte:
		body = bytes.NewReader(b)
	case string:
		body = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		body = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(context.Background(), r.method, h.env.URL+r.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if r.body != nil {
		ct := r.contentType
		if ct == "" {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
	}
	if r.key != "" {
		req.Header.Set("Authorization", "Bearer "+h.keys[r.key])
	}
	for k, v := range r.header {
		req.Header.Set(k, v)
	}
	if r.malformed {
		req = req.WithContext(context.WithValue(req.Context(), malformedKey{}, true))
	}
	res, err := h.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return response{Status: res.StatusCode, Header: res.Header, Body: raw}
}

type malformedKey struct{}

// validator checks every request and answer of the tests against the OpenAPI document
// (kin-openapi): requests unless marked malformed, answers always.
type validator struct {
	t      testing.TB
	doc    *openapi3.T
	router routers.Router
	mu     sync.Mutex
	// seen counts the answers checked per operation and status.
	seen map[string]int
}

func newValidator(t testing.TB) *validator {
	t.Helper()
	doc, err := partnerapi.LoadContract()
	if err != nil {
		t.Fatal(err)
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return &validator{t: t, doc: doc, router: router, seen: map[string]int{}}
}

func (v *validator) RoundTrip(req *http.Request) (*http.Response, error) {
	var reqBody []byte
	if req.Body != nil {
		reqBody, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	malformed, _ := req.Context().Value(malformedKey{}).(bool)
	route, params, findErr := v.router.FindRoute(req)
	var input *openapi3filter.RequestValidationInput
	if findErr == nil {
		input = &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
		if !malformed {
			check := req.Clone(req.Context())
			check.Body = io.NopCloser(bytes.NewReader(reqBody))
			input.Request = check
			if err := openapi3filter.ValidateRequest(req.Context(), input); err != nil {
				v.t.Errorf("%s %s: the request breaks the document: %v", req.Method, req.URL.Path, err)
			}
		}
	} else if !malformed {
		v.t.Errorf("%s %s: no operation of the document: %v", req.Method, req.URL.Path, findErr)
	}
	res, err := http.DefaultTransport.RoundTrip(req)
	if err != nil || input == nil {
		return res, err
	}
	body, _ := io.ReadAll(res.Body)
	res.Body = io.NopCloser(bytes.NewReader(body))
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: input, Status: res.StatusCode, Header: res.Header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true}}
	out.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(req.Context(), out); err != nil {
		v.t.Errorf("%s %s: answer %d breaks the document: %v\n%s", req.Method, req.URL.Path, res.StatusCode, err, body)
	}
	v.mu.Lock()
	v.seen[route.Operation.OperationID]++
	v.mu.Unlock()
	return res, nil
}
