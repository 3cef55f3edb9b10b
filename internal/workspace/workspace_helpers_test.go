package workspace_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
)

// workspace is a running portal with two reps and an admin, each signed in.
type workspace struct {
	env               *apptest.Env
	rep, other, admin *models.User
	repC, otherC      *apptest.Client
	adminC            *apptest.Client
}

func newWorkspace(t *testing.T) *workspace {
	t.Helper()
	env := apptest.New(t)
	w := &workspace{env: env}
	w.rep, w.repC = env.SignedIn(t, "rep@example.com", models.RoleSalesRep)
	w.other, w.otherC = env.SignedIn(t, "other@example.com", models.RoleSalesRep)
	w.admin, w.adminC = env.SignedIn(t, "admin@example.com", models.RoleAdmin)
	return w
}

// create makes an application through the New application button and returns its id.
func create(t *testing.T, c *apptest.Client) uuid.UUID {
	t.Helper()
	c.Get("/")
	res := c.PostForm("/applications", nil)
	if res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Location, "/applications/") {
		t.Fatalf("create: status %d, location %q\n%s", res.Status, res.Location, res.Body)
	}
	id, err := uuid.Parse(strings.TrimPrefix(res.Location, "/applications/"))
	if err != nil {
		t.Fatalf("create: location %q: %v", res.Location, err)
	}
	return id
}

// show loads the application page and returns it with the version its forms carry.
func show(t *testing.T, c *apptest.Client, id uuid.UUID) (apptest.Response, string) {
	t.Helper()
	return c.ShowApplication(id)
}

// ownerID returns the id of owner i as the page shows it.
func ownerID(t *testing.T, body string, i int) string {
	t.Helper()
	m := regexp.MustCompile(`name="owners\.` + strconv.Itoa(i) + `\.id" value="([^"]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no owner %d on the page", i)
	}
	return m[1]
}

// save posts one section as the Save button does (no htmx), with the page's version.
func save(t *testing.T, c *apptest.Client, id uuid.UUID, section string, values url.Values) apptest.Response {
	t.Helper()
	_, version := show(t, c, id)
	values.Set("version", version)
	return c.PostForm("/applications/"+id.String()+"/sections/"+section, values)
}

// autosave posts one section as htmx does.
func autosave(t *testing.T, c *apptest.Client, id uuid.UUID, section string, values url.Values) apptest.Response {
	t.Helper()
	_, version := show(t, c, id)
	values.Set("version", version)
	return c.Do(http.MethodPost, "/applications/"+id.String()+"/sections/"+section, strings.NewReader(values.Encode()),
		http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Hx-Request": {"true"}, "X-Csrf-Token": {c.CSRF()}})
}

// stored loads and decrypts an application straight from the service.
func stored(t *testing.T, w *workspace, id uuid.UUID) *applications.Record {
	t.Helper()
	rec, err := w.env.App.Applications.Load(context.Background(), w.admin, id)
	if err != nil {
		t.Fatalf("load %s: %v", id, err)
	}
	return rec
}

// events returns the audit entries of an application, oldest first.
func events(t *testing.T, w *workspace, id uuid.UUID) []models.AuditEvent {
	t.Helper()
	var evs []models.AuditEvent
	if err := w.env.DB.Gorm.Where("subject_kind = 'application' AND subject_id = ?", id).Order("id").Find(&evs).Error; err != nil {
		t.Fatal(err)
	}
	return evs
}

// inputValue returns the value attribute of the input with the given id, unescaped, or
// false when there is no such input.
func inputValue(body, id string) (string, bool) {
	m := regexp.MustCompile(`<input id="` + regexp.QuoteMeta(id) + `"[^>]*?value="([^"]*)"`).FindStringSubmatch(body)
	if m == nil {
		return "", false
	}
	return html.UnescapeString(m[1]), true
}

// inputTag returns the whole opening tag of the input, select or textarea with the id.
func inputTag(body, id string) string {
	return regexp.MustCompile(`<(?:input|select|textarea) id="` + regexp.QuoteMeta(id) + `"[^>]*>`).FindString(body)
}
