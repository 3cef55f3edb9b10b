package documents_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/documents"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
)

// documentRoutes lists every documents route of an application, with the
// document id filled in.
func documentRoutes(appPath, docID string) []struct{ method, path string } {
	return []struct{ method, path string }{
		{http.MethodGet, appPath},
		{http.MethodGet, appPath + "/list"},
		{http.MethodPost, appPath},
		{http.MethodGet, appPath + "/" + docID + "/preview"},
		{http.MethodGet, appPath + "/" + docID + "/download"},
		{http.MethodPost, appPath + "/" + docID + "/replace"},
		{http.MethodPost, appPath + "/" + docID + "/delete"},
	}
}

// send makes one request of a route, a small PDF upload for POSTs.
func send(t *testing.T, c *apptest.Client, method, path string) apptest.Response {
	t.Helper()
	if method == http.MethodGet {
		return c.Get(path)
	}
	if strings.HasSuffix(path, "/delete") {
		return c.Do(method, path, nil, http.Header{"X-CSRF-Token": {c.CSRF()}, "HX-Request": {"true"}})
	}
	return upload(t, c, path, "other", "x.pdf", samplePDF)
}

func TestAnotherRepGetsNotFoundEverywhere(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	owner, ownerRep := signIn(t, env, "owner@example.com", models.RoleSalesRep)
	other, _ := signIn(t, env, "other@example.com", models.RoleSalesRep)
	admin, _ := signIn(t, env, "admin@example.com", models.RoleAdmin)
	a := newApplication(t, env, ownerRep)
	if res := upload(t, owner, documents.SectionPath(a.ID), "other", "mine.pdf", samplePDF); res.Status != http.StatusCreated {
		t.Fatal(res.Body)
	}
	doc := documentsOf(t, env, a.ID)[0]
	for _, r := range documentRoutes(documents.SectionPath(a.ID), doc.ID.String()) {
		if res := send(t, other, r.method, r.path); res.Status != http.StatusNotFound {
			t.Errorf("other rep %s %s: %d, want 404", r.method, r.path, res.Status)
		}
	}
	if docs := documentsOf(t, env, a.ID); len(docs) != 1 || docs[0].DeletedAt != nil {
		t.Errorf("another rep changed the documents: %+v", docs)
	}
	// An admin sees every application.
	if res := admin.Get(documents.SectionPath(a.ID) + "/" + doc.ID.String() + "/download"); res.Status != http.StatusOK {
		t.Errorf("admin download: %d", res.Status)
	}
	// Malformed and unknown ids are simply not found.
	for _, p := range []string{"/applications/not-a-uuid/documents", documents.SectionPath(a.ID) + "/not-a-uuid/download"} {
		if res := owner.Get(p); res.Status != http.StatusNotFound {
			t.Errorf("GET %s: %d", p, res.Status)
		}
	}
}

func TestLockedOrSubmittingApplicationRefusesChanges(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, column string
		value        any
	}{
		{"handed off", "handoff_link", "https://upstream.example/app/123"},
		{"submitting", "status", string(models.StatusSubmitting)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// No workers: the push reconciler would take up the application set to
			// submitting by hand, fail to push it and hand it back as editable.
			env := apptest.New(t, apptest.WithoutWorkers())
			c, rep := signIn(t, env, "rep@example.com", models.RoleSalesRep)
			a := newApplication(t, env, rep)
			if res := upload(t, c, documents.SectionPath(a.ID), "other", "before.pdf", samplePDF); res.Status != http.StatusCreated {
				t.Fatal(res.Body)
			}
			doc := documentsOf(t, env, a.ID)[0]
			if err := env.DB.Gorm.Model(a).Update(tt.column, tt.value).Error; err != nil {
				t.Fatal(err)
			}
			for _, r := range documentRoutes(documents.SectionPath(a.ID), doc.ID.String()) {
				want := http.StatusOK
				if r.method == http.MethodPost {
					want = http.StatusConflict
				}
				if res := send(t, c, r.method, r.path); res.Status != want {
					t.Errorf("%s %s: %d, want %d\n%s", r.method, r.path, res.Status, want, res.Body)
				}
			}
			page := c.Get(documents.SectionPath(a.ID))
			if strings.Contains(page.Body, "data-upload-form") || strings.Contains(page.Body, "/delete") {
				t.Errorf("read-only section still offers changes:\n%s", page.Body)
			}
			if docs := documentsOf(t, env, a.ID); len(docs) != 1 || docs[0].DeletedAt != nil {
				t.Errorf("documents changed: %+v", docs)
			}
		})
	}
}

// An upload that starts while the application is editable but is handed off
// before the file has arrived must not add a row, and must not keep the
// bytes.
func TestAttachDiscardsBytesWhenTheRowCannotBeWritten(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	rep, _ := env.CreateUser(t, "rep@example.com", models.RoleSalesRep)
	a := newApplication(t, env, rep)
	ctx := context.Background()
	loaded, err := env.App.Documents.Editable(ctx, rep, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.DB.Gorm.Model(a).Update("handoff_link", "https://upstream.example/app/1").Error; err != nil {
		t.Fatal(err)
	}
	_, err = env.App.Documents.Attach(ctx, rep, loaded, "other", bytes.NewReader(samplePDF), "late.pdf")
	if apperr.KindOf(err) != apperr.KindConflict {
		t.Fatalf("Attach = %v, want a conflict", err)
	}
	if docs := documentsOf(t, env, a.ID); len(docs) != 0 {
		t.Errorf("rows: %+v", docs)
	}
	if objs := storedObjects(t, env); len(objs) != 0 {
		t.Errorf("bytes kept without a row: %v", objs)
	}
}

var csrfField = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// The browser's connection drops halfway through the file: no row, no
// stored bytes, nothing in the spool.
func TestInterruptedUploadLeavesNothing(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	rep, pw := env.CreateUser(t, "rep@example.com", models.RoleSalesRep)
	a := newApplication(t, env, rep)
	path := documents.SectionPath(a.ID)

	// A server of our own around the portal, to know when the upload's
	// handler has returned.
	handled := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		env.App.Handler.ServeHTTP(w, r)
		if r.Method == http.MethodPost && r.URL.Path == path {
			handled <- struct{}{}
		}
	}))
	defer srv.Close()
	base, _ := url.Parse(srv.URL)
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	token := func(p string) string {
		res, err := hc.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		m := csrfField.FindSubmatch(b)
		if m == nil {
			t.Fatalf("no CSRF token on %s", p)
		}
		return string(m[1])
	}
	res, err := hc.PostForm(srv.URL+"/login", url.Values{"email": {rep.Email}, "password": {pw}, "csrf_token": {token("/login")}})
	if err != nil || res.StatusCode != http.StatusSeeOther {
		t.Fatalf("login: %v %v", res, err)
	}
	res.Body.Close()
	csrf := token(path)

	// The request announces a 1 MiB file but sends 300 KiB and hangs up.
	var head bytes.Buffer
	mw := multipart.NewWriter(&head)
	_ = mw.WriteField("doc_type", "bank_statement")
	fw, _ := mw.CreateFormFile("file", "statement.pdf")
	_, _ = fw.Write(samplePDF)
	sent := append(head.Bytes(), make([]byte, 300<<10)...)
	announced := len(head.Bytes()) + 1<<20
	conn, err := net.Dial("tcp", base.Host)
	if err != nil {
		t.Fatal(err)
	}
	var cookies []string
	for _, ck := range jar.Cookies(base) {
		cookies = append(cookies, ck.Name+"="+ck.Value)
	}
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nCookie: %s\r\nX-CSRF-Token: %s\r\nHX-Request: true\r\n"+
		"Content-Type: %s\r\nContent-Length: %d\r\n\r\n", path, base.Host, strings.Join(cookies, "; "), csrf, mw.FormDataContentType(), announced)
	if _, err := conn.Write(sent); err != nil {
		t.Fatal(err)
	}
	// Closing our side ends the body early; the answer can still be read.
	if err := conn.(*net.TCPConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	answer, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	msg, _ := io.ReadAll(answer.Body)
	_ = conn.Close()
	if answer.StatusCode != http.StatusBadRequest || !strings.Contains(string(msg), "Nothing was saved") {
		t.Errorf("answer %d %q, want 400 saying nothing was saved", answer.StatusCode, msg)
	}
	select {
	case <-handled:
	case <-time.After(30 * time.Second):
		t.Fatal("the upload handler did not return after the connection dropped")
	}
	if docs := documentsOf(t, env, a.ID); len(docs) != 0 {
		t.Errorf("interrupted upload left rows: %+v", docs)
	}
	if objs := storedObjects(t, env); len(objs) != 0 {
		t.Errorf("interrupted upload left files: %v", objs)
	}
}
