package dashboard_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/payportal/portal/internal/auth"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
)

// Reading pages writes nothing to the session: not the idle clock (at most once a
// minute), not the CSRF token (made once), not an empty flash list. The session row is
// the same row version before and after a round of the dashboard and an application's
// pages, and no answer sets the cookie again.
func TestReadingPagesWritesNoSession(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	_, rep := env.SignedIn(t, "rep@example.com", models.RoleSalesRep)
	created := rep.PostForm("/applications", nil)
	if created.Status != http.StatusSeeOther || !strings.HasPrefix(created.Location, "/applications/") {
		t.Fatalf("new application: %d → %q", created.Status, created.Location)
	}
	app := created.Location
	// The page after an action shows its flash once; showing it takes it out of the
	// session, which is a write.
	rep.Get(app)
	rep.Get("/")

	rowVersion := func() string {
		t.Helper()
		var xmin string
		err := env.DB.Pool.QueryRow(t.Context(), `SELECT xmin::text FROM sessions
			WHERE token = encode(sha256(convert_to($1, 'UTF8')), 'hex')`, rep.Cookie(auth.SessionCookieName)).Scan(&xmin)
		if err != nil {
			t.Fatal(err)
		}
		return xmin
	}
	before := rowVersion()
	fragment := http.Header{"Hx-Request": {"true"}, "Hx-Target": {"application-list"}}
	for _, req := range []struct {
		path   string
		header http.Header
	}{
		{"/", nil}, {"/?q=fern", nil}, {"/?status=draft&sort=name", nil}, {"/?sort=-created", fragment},
		{app, nil}, {app + "/checklist", nil}, {app + "/history", nil}, {app + "/documents", nil},
		{"/account/security", nil}, {"/", nil},
	} {
		res := rep.Do(http.MethodGet, req.path, nil, req.header)
		if res.Status != http.StatusOK {
			t.Fatalf("GET %s: %d", req.path, res.Status)
		}
		if c := res.Header.Get("Set-Cookie"); c != "" {
			t.Errorf("GET %s set the session cookie again: %q", req.path, c)
		}
	}
	if after := rowVersion(); after != before {
		t.Errorf("reading pages rewrote the session row (xmin %s, then %s)", before, after)
	}
}
