package apptest

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/models"
)

// SignedIn adds an active user with the given role and returns them with a client
// signed in as them through the real sign-in form.
func (e *Env) SignedIn(t testing.TB, email string, role models.Role) (*models.User, *Client) {
	t.Helper()
	u, password := e.CreateUser(t, email, role)
	c := e.Client(t)
	c.Login(email, password)
	return u, c
}

var versionPattern = regexp.MustCompile(`name="version" id="version-[a-z]+" value="(\d+)"`)

// ShowApplication loads an application's page and returns it with the version its
// forms carry, failing the test unless the page answers 200.
func (c *Client) ShowApplication(id uuid.UUID) (Response, string) {
	c.t.Helper()
	res := c.Get("/applications/" + id.String())
	if res.Status != http.StatusOK {
		c.t.Fatalf("show %s: status %d\n%s", id, res.Status, res.Body)
	}
	m := versionPattern.FindStringSubmatch(res.Body)
	if m == nil {
		c.t.Fatalf("show: no version field\n%s", res.Body)
	}
	return res, m[1]
}

// HTMXPost posts form values as htmx does: with the HX-Request header and the CSRF token
// in X-CSRF-Token.
func (c *Client) HTMXPost(path string, values url.Values) Response {
	c.t.Helper()
	return c.Do(http.MethodPost, path, strings.NewReader(values.Encode()),
		http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Hx-Request": {"true"}, "X-Csrf-Token": {c.CSRF()}})
}
