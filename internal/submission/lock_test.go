package submission_test

import (
	"bytes"
	"maps"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
)

// lockedMessage is the start of what every refused change says (applications.ErrLocked).
const lockedMessage = "This application has been handed off to the merchant"

// notEditing are the POST routes of an application that do not change it and
// so stay open once it is handed off: the audited reveal of a personal number,
// handing it to another rep (ownership, not data), restoring a deleted one,
// e-mailing the link again, and pausing or resuming the reminders (which matter
// most once it is handed off).
var notEditing = map[string]bool{
	"/applications/:id/reveal":           true,
	"/applications/:id/reassign":         true,
	"/applications/:id/restore":          true,
	"/applications/:id/handoff/resend":   true,
	"/applications/:id/reminders/pause":  true,
	"/applications/:id/reminders/resume": true,
}

func TestHandedOffApplicationRefusesEveryChange(t *testing.T) {
	t.Parallel()
	s := newSubmitEnv(t, submitOptions{})
	a := s.newApplication(t, s.rep, readyDraft("Blue Fern"), 1)
	_, version := s.repC.ShowApplication(a.ID)
	submit(t, s.repC, a.ID)
	a = s.waitForStatus(t, a.ID, pushDeadline, models.StatusLinked)
	doc := s.documents(t, a.ID)[0]
	base := "/applications/" + a.ID.String()
	docPath := base + "/documents/" + doc.ID.String()

	type request struct {
		name, route, path string
		form              url.Values
		upload            bool
		htmx              bool
	}
	requests := []request{}
	// The internal notes are the rep's follow-up log: they stay writable (below).
	for _, section := range []string{"business", "owners", "bank", "contact", "pricing"} {
		requests = append(requests,
			request{name: "save " + section, route: "/applications/:id/sections/:section", path: base + "/sections/" + section,
				form: url.Values{"version": {version}, "notes": {"changed"}, "business.legal_name": {"Changed"}}},
			request{name: "autosave " + section, route: "/applications/:id/sections/:section", path: base + "/sections/" + section,
				form: url.Values{"version": {version}, "contact.name": {"Changed"}}, htmx: true})
	}
	requests = append(requests,
		request{name: "add an owner", route: "/applications/:id/sections/:section", path: base + "/sections/owners",
			form: url.Values{"version": {version}, "owner_action": {"add"}}},
		request{name: "submit again", route: "/applications/:id/submit", path: base + "/submit"},
		request{name: "delete", route: "/applications/:id/delete", path: base + "/delete"},
		request{name: "upload a document", route: "/applications/:id/documents", path: base + "/documents", upload: true},
		request{name: "replace a document", route: "/applications/:id/documents/:doc/replace", path: docPath + "/replace", upload: true},
		request{name: "delete a document", route: "/applications/:id/documents/:doc/delete", path: docPath + "/delete"},
		request{name: "delete a document (htmx)", route: "/applications/:id/documents/:doc/delete", path: docPath + "/delete", htmx: true},
	)

	// Every POST route of an application is either tried here or known not to edit it.
	tried := map[string]bool{}
	for _, r := range requests {
		tried[r.route] = true
	}
	for _, r := range s.env.App.Handler.Routes() {
		if r.Method == http.MethodPost && strings.HasPrefix(r.Path, "/applications/:id") && !tried[r.Path] && !notEditing[r.Path] {
			t.Errorf("route POST %s is neither checked for the lock nor listed as not editing", r.Path)
		}
	}

	for _, who := range []struct {
		name string
		c    *apptest.Client
	}{{"rep", s.repC}, {"admin", s.adminC}} {
		who.c.Get(base)
		for _, r := range requests {
			var res apptest.Response
			switch {
			case r.upload:
				res = postUpload(t, who.c, r.path, r.htmx)
			case r.htmx:
				res = who.c.HTMXPost(r.path, r.form)
			default:
				// PostForm adds the client's token to the values: each client gets its own copy.
				res = who.c.PostForm(r.path, maps.Clone(r.form))
			}
			if res.Status != http.StatusConflict || !strings.Contains(res.Body, lockedMessage) {
				t.Errorf("%s: %s: %d, want 409 saying %q\n%.300s", who.name, r.name, res.Status, lockedMessage, res.Body)
			}
		}
	}

	// Nothing changed, and reading still works.
	after := s.load(t, a.ID)
	if after.Version != a.Version || after.Status != models.StatusLinked || after.DeletedAt != nil || string(after.Draft) != string(a.Draft) {
		t.Errorf("the application changed: version %d → %d, status %s", a.Version, after.Version, after.Status)
	}
	if docs := s.documents(t, a.ID); len(docs) != 1 || docs[0].ID != doc.ID {
		t.Errorf("documents changed: %d", len(docs))
	}
	for _, path := range []string{base, base + "/checklist", base + "/history", base + "/progress", base + "/documents", docPath + "/download"} {
		if res := s.repC.Get(path); res.Status != http.StatusOK {
			t.Errorf("GET %s after the hand-off: %d", path, res.Status)
		}
	}

	// The internal notes stay writable after the hand-off, and only they change: the rep
	// records follow-ups. Any other field sent along is ignored.
	page, current := s.repC.ShowApplication(a.ID)
	if !strings.Contains(page.Body, `id="notes-follow-up"`) || strings.Contains(inputTagOf(page.Body, "notes"), "disabled") {
		t.Error("the locked page does not offer the notes as a follow-up log")
	}
	if !strings.Contains(inputTagOf(page.Body, "business.legal_name"), "disabled") {
		t.Error("the locked page lets the business be edited")
	}
	res := s.repC.PostForm(base+"/sections/notes", url.Values{"version": {current}, "notes": {"Called Jane on Monday: she opens the link tonight."},
		"business.legal_name": {"Changed"}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("saving a follow-up note: %d\n%.300s", res.Status, res.Body)
	}
	noted := s.load(t, a.ID)
	if noted.Status != models.StatusLinked || noted.LegalName != a.LegalName {
		t.Errorf("a follow-up note changed more than the notes: %s %q", noted.Status, noted.LegalName)
	}
	if page := s.repC.Get(base); !strings.Contains(page.Body, "Called Jane on Monday") {
		t.Error("the follow-up note is not on the page")
	}
	for _, path := range []string{base + "/sections/business"} {
		if res := s.repC.PostForm(path, url.Values{"version": {strconv.Itoa(noted.Version)}, "business.legal_name": {"Changed"}}); res.Status != http.StatusConflict {
			t.Errorf("POST %s after a note: %d, want 409", path, res.Status)
		}
	}
}

// inputTagOf returns the opening tag of the field with the id.
func inputTagOf(body, id string) string {
	return regexp.MustCompile(`<(?:input|select|textarea) id="` + regexp.QuoteMeta(id) + `"[^>]*>`).FindString(body)
}

// postUpload posts a document upload form with the client's CSRF token.
func postUpload(t *testing.T, c *apptest.Client, path string, htmx bool) apptest.Response {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("csrf_token", c.CSRF())
	_ = w.WriteField("doc_type", "bank_statement")
	f, err := w.CreateFormFile("file", "statement.pdf")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.Write(randomPDF(t))
	_ = w.Close()
	h := http.Header{"Content-Type": {w.FormDataContentType()}, "X-Csrf-Token": {c.CSRF()}}
	if htmx {
		h.Set("Hx-Request", "true")
	}
	return c.Do(http.MethodPost, path, &body, h)
}
