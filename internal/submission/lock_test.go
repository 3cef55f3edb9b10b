package submission_test

import (
	"bytes"
	"maps"
	"mime/multipart"
	"net/http"
	"net/url"
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
	for _, section := range []string{"business", "owners", "bank", "contact", "pricing", "notes"} {
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
