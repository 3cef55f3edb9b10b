package partnerapi_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"
)

// TestListPagesByChangeTime pages through applications with cursors, oldest change
// first; a row changed between two pages moves to the end without hiding the rows
// after the cursor, and updatedSince and state narrow the list.
func TestListPagesByChangeTime(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var ids []string
	for range 5 {
		h.env.Clock.Advance(time.Second)
		ids = append(ids, h.newApplication(t, nil))
	}
	page := func(query string) (got []string, next string) {
		t.Helper()
		res := h.do(t, request{key: keyRep, method: http.MethodGet, path: "/api/v1/applications?" + query})
		if res.Status != http.StatusOK {
			t.Fatalf("%s: %d %s", query, res.Status, res.Body)
		}
		body := res.JSON(t)
		for _, a := range body["data"].([]any) {
			got = append(got, a.(map[string]any)["id"].(string))
		}
		if c, ok := body["nextCursor"].(string); ok {
			next = c
		}
		return got, next
	}
	first, cursor := page("limit=2")
	if len(first) != 2 || first[0] != ids[0] || first[1] != ids[1] || cursor == "" {
		t.Fatalf("first page %v %q", first, cursor)
	}
	// The cursor's row changes before the next page is read.
	h.env.Clock.Advance(time.Second)
	if res := h.do(t, request{key: keyRep, method: http.MethodPatch, path: "/api/v1/applications/" + ids[1], contentType: "application/merge-patch+json",
		header: map[string]string{"If-Match": h.etagOf(t, ids[1])}, body: map[string]any{"notes": "changed"}}); res.Status != http.StatusOK {
		t.Fatalf("patch: %d %s", res.Status, res.Body)
	}
	second, cursor := page("limit=2&cursor=" + url.QueryEscape(cursor))
	if len(second) != 2 || second[0] != ids[2] || second[1] != ids[3] {
		t.Fatalf("second page %v", second)
	}
	third, cursor := page("limit=2&cursor=" + url.QueryEscape(cursor))
	if len(third) != 2 || third[0] != ids[4] || third[1] != ids[1] || cursor != "" {
		t.Fatalf("third page %v %q", third, cursor)
	}
	since, _ := page("updatedSince=" + url.QueryEscape(h.env.Clock.Now().UTC().Format(time.RFC3339Nano)))
	if len(since) != 1 || since[0] != ids[1] {
		t.Fatalf("updatedSince %v", since)
	}
	if got, _ := page("state=boarded"); len(got) != 0 {
		t.Fatalf("boarded %v", got)
	}
	if got, _ := page("state=draft&limit=100"); len(got) != 5 {
		t.Fatalf("drafts %v", got)
	}
	// A deleted application leaves the list.
	if _, err := h.env.DB.Pool.Exec(context.Background(), `UPDATE applications SET deleted_at = now() WHERE id = $1`, ids[0]); err != nil {
		t.Fatal(err)
	}
	if got, _ := page("limit=100"); len(got) != 4 {
		t.Fatalf("after a deletion %v", got)
	}
}
