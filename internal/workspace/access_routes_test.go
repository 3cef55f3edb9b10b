package workspace_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// appRoutes are every application-scoped route of the workspace, plus the documents URL the
// page loads, with a request that would succeed for the owner.
func appRoutes(id uuid.UUID, version string, owner string) []struct {
	name, method, path string
	form               url.Values
} {
	base := "/applications/" + id.String()
	return []struct {
		name, method, path string
		form               url.Values
	}{
		{"view", http.MethodGet, base, nil},
		{"checklist", http.MethodGet, base + "/checklist", nil},
		{"history", http.MethodGet, base + "/history", nil},
		{"documents", http.MethodGet, base + "/documents", nil},
		{"edit (save button)", http.MethodPost, base + "/sections/business", url.Values{"version": {version}, "business.legal_name": {"Taken over"}}},
		{"autosave", http.MethodPost, base + "/sections/notes", url.Values{"version": {version}, "notes": {"x"}, "hx": {"1"}}},
		{"owners", http.MethodPost, base + "/sections/owners", url.Values{"version": {version}, "owner_action": {"add"}}},
		{"unknown section", http.MethodPost, base + "/sections/nope", url.Values{"version": {version}}},
		{"missing version", http.MethodPost, base + "/sections/notes", url.Values{"notes": {"x"}}},
		{"reveal", http.MethodPost, base + "/reveal", url.Values{"field": {"owners." + owner + ".ssn"}}},
		{"reassign", http.MethodPost, base + "/reassign", url.Values{"owner_id": {uuid.NewString()}}},
		{"delete", http.MethodPost, base + "/delete", nil},
		{"restore", http.MethodPost, base + "/restore", nil},
	}
}

func TestAnotherRepGets404OnEveryRoute(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	id, owner := fillPersonalData(t, w)
	_, version := show(t, w.repC, id)
	w.otherC.Get("/")
	for _, r := range appRoutes(id, version, owner) {
		var res = w.otherC.Get(r.path)
		if r.method == http.MethodPost {
			if r.form.Has("hx") {
				res = w.otherC.HTMXPost(r.path, r.form)
			} else {
				res = w.otherC.PostForm(r.path, r.form)
			}
		}
		if res.Status != http.StatusNotFound {
			t.Errorf("%s: %s %s = %d, want 404", r.name, r.method, r.path, res.Status)
		}
		if strings.Contains(res.Body, "Blue Fern") || strings.Contains(res.Body, "6789") {
			t.Errorf("%s: the answer tells something about the application", r.name)
		}
	}
	// A malformed or unknown id is the same 404.
	for _, path := range []string{"/applications/not-a-uuid", "/applications/" + uuid.NewString()} {
		if res := w.otherC.Get(path); res.Status != http.StatusNotFound {
			t.Errorf("%s: %d", path, res.Status)
		}
	}
	// Nothing changed.
	rec := stored(t, w, id)
	if rec.App.OwnerID != w.rep.ID || rec.App.DeletedAt != nil || rec.Draft.Business.LegalName != "Blue Fern Coffee LLC" || len(rec.Draft.Owners) != 1 {
		t.Errorf("another rep changed the application: %+v", rec.App)
	}
	// The list does not show it either.
	if res := w.otherC.Get("/?q=blue"); strings.Contains(res.Body, id.String()) {
		t.Error("another rep's list shows it")
	}
}

func TestRepCannotUseAdminActionsOnOwnApplication(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	id := create(t, w.repC)
	w.repC.Get("/applications/" + id.String())
	for path, want := range map[string]int{
		"/reassign": http.StatusForbidden,
		"/restore":  http.StatusNotFound, // a deleted application does not exist for a rep
	} {
		res := w.repC.PostForm("/applications/"+id.String()+path, url.Values{"owner_id": {w.other.ID.String()}})
		if res.Status != want {
			t.Errorf("%s: %d, want %d", path, res.Status, want)
		}
	}
}

func TestDeleteAndRestore(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	id := create(t, w.repC)
	autosave(t, w.repC, id, "business", url.Values{"business.dba": {"Gone Soon"}})
	w.repC.Get("/applications/" + id.String())
	res := w.repC.PostForm("/applications/"+id.String()+"/delete", nil)
	if res.Status != http.StatusSeeOther || res.Location != "/" {
		t.Fatalf("delete: %d %q", res.Status, res.Location)
	}
	if res := w.repC.Get("/"); !strings.Contains(res.Body, "An admin can restore it") || strings.Contains(res.Body, "Gone Soon") {
		t.Errorf("after delete the list:\n%s", res.Body)
	}
	for _, c := range []struct {
		name string
		get  func(string) int
	}{{"rep", func(p string) int { return w.repC.Get(p).Status }}, {"admin", func(p string) int { return w.adminC.Get(p).Status }}} {
		if got := c.get("/applications/" + id.String()); got != http.StatusNotFound {
			t.Errorf("%s sees the deleted application: %d", c.name, got)
		}
	}
	// The rep's deleted filter is ignored; the admin's shows it with Restore.
	autosave(t, w.repC, create(t, w.repC), "business", url.Values{"business.dba": {"Still Here"}})
	if res := w.repC.Get("/?deleted=1"); strings.Contains(res.Body, "Gone Soon") || strings.Contains(res.Body, "/restore") ||
		strings.Contains(res.Body, "Deleted applications") || !strings.Contains(res.Body, "Still Here") {
		t.Errorf("a rep asking for deleted applications:\n%s", res.Body)
	}
	list := w.adminC.Get("/?deleted=1")
	if !strings.Contains(list.Body, "Gone Soon") || !strings.Contains(list.Body, `action="/applications/`+id.String()+`/restore"`) {
		t.Fatalf("admin deleted list:\n%s", list.Body)
	}
	res = w.adminC.PostForm("/applications/"+id.String()+"/restore", nil)
	if res.Status != http.StatusSeeOther {
		t.Fatalf("restore: %d\n%s", res.Status, res.Body)
	}
	if got := w.repC.Get("/applications/" + id.String()).Status; got != http.StatusOK {
		t.Errorf("restored application: %d", got)
	}
	if res := w.adminC.PostForm("/applications/"+id.String()+"/restore", nil); res.Status != http.StatusConflict {
		t.Errorf("restoring twice: %d", res.Status)
	}
	var actions []string
	for _, e := range events(t, w, id) {
		actions = append(actions, e.Action)
	}
	if got := strings.Join(actions, " "); got != "created changed deleted restored" {
		t.Errorf("audit = %s", got)
	}
	rec := stored(t, w, id)
	if rec.App.DeletedAt != nil || rec.App.DeletedBy != nil {
		t.Error("restore left the deletion marks")
	}
}

func TestAdminReassigns(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	id := create(t, w.repC)
	page, _ := show(t, w.adminC, id)
	if !strings.Contains(page.Body, `action="/applications/`+id.String()+`/reassign"`) {
		t.Fatal("no reassign form for the admin")
	}
	res := w.adminC.PostForm("/applications/"+id.String()+"/reassign", url.Values{"owner_id": {w.other.ID.String()}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("reassign: %d\n%s", res.Status, res.Body)
	}
	if got := w.repC.Get("/applications/" + id.String()).Status; got != http.StatusNotFound {
		t.Errorf("former owner: %d", got)
	}
	if got := w.otherC.Get("/applications/" + id.String()).Status; got != http.StatusOK {
		t.Errorf("new owner: %d", got)
	}
	history := w.adminC.Get("/applications/" + id.String() + "/history")
	if !strings.Contains(history.Body, "reassigned the application from rep@example.com to other@example.com") {
		t.Errorf("history:\n%s", history.Body)
	}
	// Deactivated users and unknown ids cannot take an application.
	if err := w.env.App.Auth.SetActive(t.Context(), w.admin, w.rep.ID, false); err != nil {
		t.Fatal(err)
	}
	for _, to := range []string{w.rep.ID.String(), uuid.NewString(), "nobody"} {
		res := w.adminC.PostForm("/applications/"+id.String()+"/reassign", url.Values{"owner_id": {to}})
		if res.Status != http.StatusUnprocessableEntity {
			t.Errorf("reassign to %s: %d", to, res.Status)
		}
	}
}

func TestLockedApplicationIsReadOnly(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	id := create(t, w.repC)
	if err := w.env.DB.Gorm.Exec(`UPDATE applications SET status = 'linked', handoff_link = 'https://example.test/x' WHERE id = ?`, id).Error; err != nil {
		t.Fatal(err)
	}
	page, version := show(t, w.repC, id)
	if !strings.Contains(page.Body, "can no longer be changed here") || !strings.Contains(inputTag(page.Body, "business.legal_name"), "disabled") {
		t.Error("a locked application is not shown read-only")
	}
	if strings.Contains(page.Body, `/delete"`) {
		t.Error("a locked application offers Delete")
	}
	res := w.repC.PostForm("/applications/"+id.String()+"/sections/business", url.Values{"version": {version}, "business.legal_name": {"x"}})
	if res.Status != http.StatusConflict {
		t.Errorf("save on a locked application: %d", res.Status)
	}
	// The internal notes are the follow-up log: they stay writable.
	if res := w.repC.PostForm("/applications/"+id.String()+"/sections/notes", url.Values{"version": {version}, "notes": {"x"}}); res.Status != http.StatusSeeOther {
		t.Errorf("a follow-up note on a locked application: %d", res.Status)
	}
}

// A merchant user (issue 16) never reaches an application: every route is
// 404, as for another rep, and the dashboard is not theirs.
func TestAMerchantUserGets404OnEveryApplicationRoute(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	id, owner := fillPersonalData(t, w)
	_, version := show(t, w.repC, id)
	_, token, _, err := w.env.App.Auth.InviteMerchantUser(t.Context(), w.admin, "clerk@merchant.example", "Clerk", nil)
	if err != nil {
		t.Fatal(err)
	}
	const pw = "Correct-horse-battery-staple-9"
	if _, err := w.env.App.Auth.AcceptInvitation(t.Context(), token, pw, pw); err != nil {
		t.Fatal(err)
	}
	c := w.env.Client(t)
	c.Login("clerk@merchant.example", pw)
	if res := c.Get("/"); res.Status != http.StatusSeeOther || res.Location != "/merchants" {
		t.Errorf("the dashboard for a merchant user: %d %s", res.Status, res.Location)
	}
	for _, r := range appRoutes(id, version, owner) {
		res := c.Get(r.path)
		if r.method == http.MethodPost {
			res = c.PostForm(r.path, r.form)
		}
		if res.Status != http.StatusNotFound || strings.Contains(res.Body, "Blue Fern") {
			t.Errorf("%s: %s %s = %d, want 404", r.name, r.method, r.path, res.Status)
		}
	}
	if res := c.PostForm("/applications", nil); res.Status != http.StatusNotFound {
		t.Errorf("a merchant user creates an application: %d", res.Status)
	}
}
