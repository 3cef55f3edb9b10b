package documents_test

import (
	"bytes"
	"context"
	"io/fs"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
)

// Small files that start like real ones: the type check reads the header.
var (
	samplePDF = []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n")
	samplePNG = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR"), make([]byte, 17)...)
)

// newApplication inserts a draft application owned by owner.
func newApplication(t testing.TB, env *apptest.Env, owner *models.User) *models.Application {
	t.Helper()
	now := time.Now()
	a := &models.Application{
		ID: uuid.New(), OwnerID: owner.ID, Status: models.StatusDraft, LegalName: "Acme Bakery LLC",
		Draft: models.JSON(`{}`), Version: 1, CreatedAt: now, UpdatedAt: now,
	}
	if err := env.DB.Gorm.WithContext(context.Background()).Create(a).Error; err != nil {
		t.Fatalf("create application: %v", err)
	}
	return a
}

// part is one field of a multipart form; a part with a File name is a file.
type part struct {
	Name, File string
	Body       []byte
}

// multipartForm encodes parts in order.
func multipartForm(t testing.TB, parts ...part) (*bytes.Buffer, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		if p.File != "" {
			h.Set("Content-Disposition", `form-data; name="`+p.Name+`"; filename="`+escapeQuotes(p.File)+`"`)
			h.Set("Content-Type", "application/octet-stream")
		} else {
			h.Set("Content-Disposition", `form-data; name="`+p.Name+`"`)
		}
		pw, err := w.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = pw.Write(p.Body)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return &buf, w.FormDataContentType()
}

func escapeQuotes(s string) string {
	return strings.NewReplacer("\\", "\\\\", `"`, "\\\"").Replace(s)
}

// upload sends a file the way uploads.js does: type first, CSRF header,
// HX-Request.
func upload(t testing.TB, c *apptest.Client, path, docType, filename string, content []byte) apptest.Response {
	t.Helper()
	parts := []part{}
	if docType != "" {
		parts = append(parts, part{Name: "doc_type", Body: []byte(docType)})
	}
	parts = append(parts, part{Name: "file", File: filename, Body: content})
	body, ctype := multipartForm(t, parts...)
	return c.Do(http.MethodPost, path, body, http.Header{
		"Content-Type": {ctype}, "X-CSRF-Token": {c.CSRF()}, "HX-Request": {"true"},
	})
}

// documentsOf returns every document row of an application, deleted ones
// included, oldest first.
func documentsOf(t testing.TB, env *apptest.Env, appID uuid.UUID) []models.Document {
	t.Helper()
	var docs []models.Document
	if err := env.DB.Gorm.Where("application_id = ?", appID).Order("created_at, id").Find(&docs).Error; err != nil {
		t.Fatal(err)
	}
	return docs
}

// eventsOf returns the actions of an application's audit trail, in order.
func eventsOf(t testing.TB, env *apptest.Env, appID uuid.UUID) []models.AuditEvent {
	t.Helper()
	var events []models.AuditEvent
	if err := env.DB.Gorm.Where("subject_kind = 'application' AND subject_id = ?", appID).Order("id").Find(&events).Error; err != nil {
		t.Fatal(err)
	}
	return events
}

// storedObjects lists every file under the local storage folder: objects,
// and any temporary or spooled file that an upload left behind.
func storedObjects(t testing.TB, env *apptest.Env) []string {
	t.Helper()
	root := env.Config.Storage.LocalDir
	var keys []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			keys = append(keys, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// signIn creates a user and returns a signed-in client that has loaded a
// page (so it holds a CSRF token).
func signIn(t testing.TB, env *apptest.Env, email string, role models.Role) (*apptest.Client, *models.User) {
	t.Helper()
	u, pw := env.CreateUser(t, email, role)
	c := env.Client(t)
	c.Login(email, pw)
	c.Get("/")
	return c, u
}

// newDocument returns the one document of the application not in seen, and
// adds it to seen. Rows share the test clock's time, so order cannot tell.
func newDocument(t testing.TB, env *apptest.Env, appID uuid.UUID, seen map[uuid.UUID]bool) models.Document {
	t.Helper()
	var found []models.Document
	for _, d := range documentsOf(t, env, appID) {
		if !seen[d.ID] {
			found = append(found, d)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want exactly one new document, found %d", len(found))
	}
	seen[found[0].ID] = true
	return found[0]
}

// wantTrigger is the HX-Trigger of a successful change: the document list
// and the application page's checklist and history reload.
const wantTrigger = `{"documents-changed":{"target":"body"},"application-changed":{"target":"body"}}`
