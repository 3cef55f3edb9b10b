package partnerapi_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/app"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/testutil/apptest"
)

func TestIdempotencyKeyReplaysTheFirstAnswer(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	idem := map[string]string{"Idempotency-Key": "create-blue-fern-1"}
	body := map[string]any{"business": map[string]any{"legalName": "Blue Fern LLC", "tin": "12-3456789"}}
	first := h.do(t, request{key: keyRep, method: http.MethodPost, path: "/api/v1/applications", body: body, header: idem})
	if first.Status != http.StatusCreated || first.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first: %d %v %s", first.Status, first.Header, first.Body)
	}
	again := h.do(t, request{key: keyRep, method: http.MethodPost, path: "/api/v1/applications", body: body, header: idem})
	if again.Status != http.StatusCreated || string(again.Body) != string(first.Body) || again.Header.Get("Idempotent-Replayed") != "true" ||
		again.Header.Get("Location") != first.Header.Get("Location") || again.Header.Get("ETag") != first.Header.Get("ETag") {
		t.Fatalf("replay: %d %v\n%s\nfirst %s", again.Status, again.Header, again.Body, first.Body)
	}
	var n int
	if err := h.env.DB.Pool.QueryRow(context.Background(), `SELECT count(*) FROM applications`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d applications (%v)", n, err)
	}
	// The stored answer holds personal data: it is sealed.
	var stored string
	if err := h.env.DB.Pool.QueryRow(context.Background(), `SELECT body FROM api_idempotency`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stored, "Blue Fern") || strings.Contains(stored, "6789") {
		t.Fatalf("the kept answer is readable: %.80s", stored)
	}
	// Another body with the same key is refused; another key's same key is its own.
	other := h.do(t, request{key: keyRep, method: http.MethodPost, path: "/api/v1/applications", body: map[string]any{"notes": "x"}, header: idem})
	if other.Status != http.StatusUnprocessableEntity || other.JSON(t)["code"] != "idempotency_key_reused" {
		t.Fatalf("other body: %d %s", other.Status, other.Body)
	}
	mine := h.do(t, request{key: keyOtherRep, method: http.MethodPost, path: "/api/v1/applications", body: body, header: idem})
	if mine.Status != http.StatusCreated || mine.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("another key: %d %s", mine.Status, mine.Body)
	}
	// A refusal is kept too: the retry is refused the same way without running again.
	bad := map[string]any{"business": map[string]any{"email": "nope"}}
	hdr := map[string]string{"Idempotency-Key": "bad-1"}
	r1 := h.do(t, request{key: keyRep, method: http.MethodPost, path: "/api/v1/applications", body: bad, header: hdr})
	r2 := h.do(t, request{key: keyRep, method: http.MethodPost, path: "/api/v1/applications", body: bad, header: hdr})
	if r1.Status != 422 || r2.Status != 422 || r2.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("refusals: %d %d %v", r1.Status, r2.Status, r2.Header)
	}
	// An upload with the same parts but a new multipart boundary is the same request.
	id := h.newApplication(t, nil)
	up1, ct1 := uploadBody(t, "bank_statement", 3)
	up2, ct2 := uploadBody(t, "bank_statement", 3)
	if ct1 == ct2 {
		t.Fatal("the boundaries should differ")
	}
	u1 := h.do(t, request{key: keyRep, method: http.MethodPost, path: "/api/v1/applications/" + id + "/documents", body: up1, contentType: ct1, header: map[string]string{"Idempotency-Key": "up-1"}})
	u2 := h.do(t, request{key: keyRep, method: http.MethodPost, path: "/api/v1/applications/" + id + "/documents", body: up2, contentType: ct2, header: map[string]string{"Idempotency-Key": "up-1"}})
	if u1.Status != http.StatusCreated || u2.Status != http.StatusCreated || string(u1.Body) != string(u2.Body) {
		t.Fatalf("uploads: %d %d\n%s\n%s", u1.Status, u2.Status, u1.Body, u2.Body)
	}
}

func TestRateLimitPerKey(t *testing.T) {
	t.Parallel()
	h := newHarness(t, apptest.WithEnv("PORTAL_API_RATE_LIMIT", "3"))
	// The portal's clock stands still unless the test moves it: the four requests share a window.
	for i := range 3 {
		if res := h.do(t, request{key: keyRep, method: http.MethodGet, path: "/api/v1/pricing-models"}); res.Status != http.StatusOK {
			t.Fatalf("request %d: %d", i+1, res.Status)
		}
	}
	res := h.do(t, request{key: keyRep, method: http.MethodGet, path: "/api/v1/pricing-models"})
	if res.Status != http.StatusTooManyRequests || res.JSON(t)["code"] != "rate_limited" {
		t.Fatalf("fourth: %d %s", res.Status, res.Body)
	}
	if ra := res.Header.Get("Retry-After"); ra == "" || ra == "0" {
		t.Fatalf("Retry-After %q", ra)
	}
	// Another key has its own count; the next minute starts afresh.
	if res := h.do(t, request{key: keyReseller, method: http.MethodGet, path: "/api/v1/pricing-models"}); res.Status != http.StatusOK {
		t.Fatalf("another key: %d", res.Status)
	}
	h.env.Clock.Advance(time.Minute)
	if res := h.do(t, request{key: keyRep, method: http.MethodGet, path: "/api/v1/pricing-models"}); res.Status != http.StatusOK {
		t.Fatalf("next minute: %d", res.Status)
	}
}

// TestRevocationHoldsOnEveryReplica runs a second portal on the same database: a key
// revoked through one is refused by the other on its next request, and a rep's
// deactivation stops the rep's keys everywhere too.
func TestRevocationHoldsOnEveryReplica(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	second, err := app.Build(context.Background(), h.env.Config, h.env.DB, slog.New(slog.DiscardHandler), app.Options{Now: h.env.Clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(second.Handler)
	t.Cleanup(srv.Close)
	ask := func(url, key string) int {
		req, _ := http.NewRequest(http.MethodGet, url+"/api/v1/applications", nil)
		req.Header.Set("Authorization", "Bearer "+h.keys[key])
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if a, b := ask(h.env.URL, keyRep), ask(srv.URL, keyRep); a != 200 || b != 200 {
		t.Fatalf("before: %d %d", a, b)
	}
	if _, err := h.env.App.APIKeys.Revoke(context.Background(), h.admin, h.keyIDs[keyRep]); err != nil {
		t.Fatal(err)
	}
	if a, b := ask(h.env.URL, keyRep), ask(srv.URL, keyRep); a != 401 || b != 401 {
		t.Fatalf("after revoking: %d %d", a, b)
	}
	if err := h.env.App.Auth.SetActive(context.Background(), h.admin, h.repB.ID, false); err != nil {
		t.Fatal(err)
	}
	if a, b := ask(h.env.URL, keyOtherRep), ask(srv.URL, keyOtherRep); a != 401 || b != 401 {
		t.Fatalf("after deactivating the rep: %d %d", a, b)
	}
}

// TestCookiesAndKeysStayApart: a signed-in browser's cookie does not reach the API, and
// a key does not open a page.
func TestCookiesAndKeysStayApart(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	_, browser := h.env.SignedIn(t, "carol@example.com", "sales_rep")
	if res := browser.Get("/api/v1/applications"); res.Status != http.StatusUnauthorized {
		t.Fatalf("the API with a session cookie: %d", res.Status)
	}
	req, _ := http.NewRequest(http.MethodGet, h.env.URL+"/", nil)
	req.Header.Set("Authorization", "Bearer "+h.keys[keyReseller])
	res, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/login") {
		t.Fatalf("a page with a key: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
}

// TestWritesLandInTheTrailUnderTheKey: an API write is in the application's history
// under the key's name, and the key's own trail has its creation and revocation.
func TestWritesLandInTheTrailUnderTheKey(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	res := h.do(t, request{key: keyReseller, method: http.MethodPost, path: "/api/v1/applications",
		body: map[string]any{"ownerId": h.repA.ID.String(), "business": map[string]any{"legalName": "Blue Fern LLC"}}})
	if res.Status != http.StatusCreated || res.JSON(t)["ownerId"] != h.repA.ID.String() {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	id := res.JSON(t)["id"].(string)
	body, ct := uploadBody(t, "bank_statement", 11)
	if res := h.do(t, request{key: keyReseller, method: http.MethodPost, path: "/api/v1/applications/" + id + "/documents", body: body, contentType: ct}); res.Status != 201 {
		t.Fatalf("upload: %d %s", res.Status, res.Body)
	}
	rows, err := h.env.DB.Pool.Query(context.Background(), `SELECT e.action, COALESCE(k.name, '') FROM audit_events e
		LEFT JOIN api_keys k ON k.id = e.actor_key_id WHERE e.subject_id = $1::uuid ORDER BY e.id`, id)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var action, key string
		_ = rows.Scan(&action, &key)
		got = append(got, action+" by "+key)
	}
	if strings.Join(got, ", ") != audit.ActionCreated+" by reseller-wide key, "+audit.ActionDocumentAdded+" by reseller-wide key" {
		t.Fatalf("trail: %q", got)
	}
	hist, err := h.env.App.Applications.History(context.Background(), h.repA, uuidOf(t, id))
	if err != nil || len(hist) == 0 || hist[0].Actor != "API key “reseller-wide key”" {
		t.Fatalf("history %+v (%v)", hist, err)
	}
	// A reseller-wide key names the owning rep; an unknown one is refused.
	res = h.do(t, request{key: keyReseller, method: http.MethodPost, path: "/api/v1/applications", body: map[string]any{}})
	if res.Status != 422 || !strings.Contains(string(res.Body), "/ownerId") {
		t.Fatalf("no owner: %d %s", res.Status, res.Body)
	}
}
