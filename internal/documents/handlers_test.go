package documents_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/audit"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/payportal/portal/internal/documents"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
)

func TestUploadListAndDownload(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	c, rep := signIn(t, env, "rep@example.com", models.RoleSalesRep)
	a := newApplication(t, env, rep)
	base := documents.SectionPath(a.ID)

	res := upload(t, c, base, "bank_statement", "March statement.pdf", samplePDF)
	if res.Status != http.StatusCreated || res.Header.Get("HX-Trigger") != wantTrigger {
		t.Fatalf("upload: %d %q\n%s", res.Status, res.Header.Get("HX-Trigger"), res.Body)
	}
	docs := documentsOf(t, env, a.ID)
	if len(docs) != 1 {
		t.Fatalf("documents = %d, want 1", len(docs))
	}
	d := docs[0]
	sum := sha256.Sum256(samplePDF)
	switch {
	case d.DocType != "bank_statement", d.DisplayName != "March statement.pdf", d.ContentType != documents.ContentTypePDF,
		d.SizeBytes != int64(len(samplePDF)), d.SHA256 != hex.EncodeToString(sum[:]),
		d.StorageKey != documents.StorageKey(a.ID, d.ID), d.UpstreamStatus != documents.UpstreamPending,
		d.UploadedBy == nil || *d.UploadedBy != rep.ID:
		t.Fatalf("document row = %+v", d)
	}
	if got := storedObjects(t, env); len(got) != 1 || got[0] != d.StorageKey {
		t.Fatalf("stored objects = %v, want [%s]", got, d.StorageKey)
	}
	events := eventsOf(t, env, a.ID)
	if len(events) != 1 || events[0].Action != audit.ActionDocumentAdded || events[0].ActorID == nil || *events[0].ActorID != rep.ID {
		t.Fatalf("events = %+v", events)
	}
	var details map[string]any
	_ = json.Unmarshal(events[0].Details, &details)
	if details["doc_type"] != "bank_statement" || details["display_name"] != "March statement.pdf" {
		t.Errorf("event details = %v", details)
	}

	// The section, as htmx loads it and as a page.
	frag := c.Do(http.MethodGet, base, nil, http.Header{"HX-Request": {"true"}})
	if frag.Status != http.StatusOK || !strings.Contains(frag.Body, "March statement.pdf") || strings.Contains(frag.Body, "<html") {
		t.Fatalf("fragment: %d\n%s", frag.Status, frag.Body)
	}
	page := c.Get(base)
	if page.Status != http.StatusOK || !strings.Contains(page.Body, "<html") || !strings.Contains(page.Body, `id="documents-list"`) {
		t.Fatalf("page: %d\n%s", page.Status, page.Body)
	}
	list := c.Get(base + "/list")
	if list.Status != http.StatusOK || !strings.Contains(list.Body, "March statement.pdf") || !strings.Contains(list.Body, "Bank statement") {
		t.Fatalf("list: %d\n%s", list.Status, list.Body)
	}

	dl := c.Get(base + "/" + d.ID.String() + "/download")
	if dl.Status != http.StatusOK || dl.Body != string(samplePDF) {
		t.Fatalf("download: %d, %d bytes", dl.Status, len(dl.Body))
	}
	checkServed(t, dl, "attachment", documents.ContentTypePDF, "March statement.pdf")
	if csp := dl.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "sandbox") {
		t.Errorf("download CSP %q has no sandbox", csp)
	}
	pv := c.Get(base + "/" + d.ID.String() + "/preview")
	if pv.Status != http.StatusOK || pv.Body != string(samplePDF) {
		t.Fatalf("preview: %d", pv.Status)
	}
	checkServed(t, pv, "inline", documents.ContentTypePDF, "March statement.pdf")
	if csp := pv.Header.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "default-src 'none'") || strings.Contains(csp, "sandbox") {
		t.Errorf("PDF preview CSP = %q: want default-src 'none' and no sandbox (PDF viewers refuse it)", csp)
	}
}

func TestPreviewOfImageIsSandboxed(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	c, rep := signIn(t, env, "rep@example.com", models.RoleSalesRep)
	a := newApplication(t, env, rep)
	if res := upload(t, c, documents.SectionPath(a.ID), "photo_id", "licence.png", samplePNG); res.Status != http.StatusCreated {
		t.Fatalf("upload: %d %s", res.Status, res.Body)
	}
	d := documentsOf(t, env, a.ID)[0]
	pv := c.Get(documents.SectionPath(a.ID) + "/" + d.ID.String() + "/preview")
	checkServed(t, pv, "inline", documents.ContentTypePNG, "licence.png")
	if csp := pv.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "sandbox") || !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("image preview CSP = %q", csp)
	}
}

// checkServed asserts the headers every served document carries.
func checkServed(t *testing.T, res apptest.Response, disposition, contentType, filename string) {
	t.Helper()
	if got := res.Header.Get("Content-Type"); got != contentType {
		t.Errorf("Content-Type = %q, want %q", got, contentType)
	}
	if got := res.Header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("X-Content-Type-Options = %q", got)
	}
	if got := res.Header.Get("Cache-Control"); !strings.Contains(got, "no-store") {
		t.Errorf("Cache-Control = %q", got)
	}
	kind, params, err := mime.ParseMediaType(res.Header.Get("Content-Disposition"))
	if err != nil || kind != disposition || params["filename"] != filename {
		t.Errorf("Content-Disposition %q: %s %v %v, want %s filename %q", res.Header.Get("Content-Disposition"), kind, params, err, disposition, filename)
	}
}

func TestUploadRefusals(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.WithEnv("PORTAL_MAX_UPLOAD_BYTES", "2048"))
	c, rep := signIn(t, env, "rep@example.com", models.RoleSalesRep)
	a := newApplication(t, env, rep)
	big := append(append([]byte{}, samplePDF...), make([]byte, 4096)...)
	tests := []struct {
		name, docType, file string
		body                []byte
		want                string
	}{
		{"oversize", "bank_statement", "big.pdf", big, "The file is larger than the 2 KiB limit."},
		{"empty", "bank_statement", "empty.pdf", nil, "The file is empty."},
		{"web page named .pdf", "bank_statement", "statement.pdf", []byte("<!doctype html><script>alert(1)</script>"), "This file is a web page (HTML), not a PDF, PNG, JPEG, TIFF or HEIC document."},
		{"program named .pdf", "bank_statement", "statement.pdf", []byte("MZ\x90\x00\x03\x00\x00\x00"), "This file is a Windows program, not a PDF, PNG, JPEG, TIFF or HEIC document."},
		{"Word document named .jpg", "photo_id", "id.jpg", []byte("PK\x03\x04\x14\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x13\x00\x00\x00[Content_Types].xml"), "This file is a Microsoft Office document, not a PDF, PNG, JPEG, TIFF or HEIC document."},
		{"no type", "", "statement.pdf", samplePDF, "Choose what kind of document this is."},
		{"unknown type", "passport_scan", "statement.pdf", samplePDF, "Choose one of the listed document types."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := upload(t, c, documents.SectionPath(a.ID), tt.docType, tt.file, tt.body)
			if res.Status != http.StatusUnprocessableEntity || res.Body != tt.want {
				t.Fatalf("status %d body %q, want 422 %q", res.Status, res.Body, tt.want)
			}
		})
	}
	t.Run("no file", func(t *testing.T) {
		body, ctype := multipartForm(t, part{Name: "doc_type", Body: []byte("bank_statement")})
		res := c.Do(http.MethodPost, documents.SectionPath(a.ID), body, http.Header{
			"Content-Type": {ctype}, "X-CSRF-Token": {c.CSRF()}, "HX-Request": {"true"}})
		if res.Status != http.StatusUnprocessableEntity || res.Body != "Choose a file to upload." {
			t.Fatalf("status %d body %q", res.Status, res.Body)
		}
	})
	if docs := documentsOf(t, env, a.ID); len(docs) != 0 {
		t.Errorf("refused uploads left rows: %+v", docs)
	}
	if objs := storedObjects(t, env); len(objs) != 0 {
		t.Errorf("refused uploads left files: %v", objs)
	}
	if ev := eventsOf(t, env, a.ID); len(ev) != 0 {
		t.Errorf("refused uploads were audited: %+v", ev)
	}
}

// A browser without JavaScript posts the form with the CSRF token as a field;
// it gets a redirect, or the page again with the message beside the file.
// Without JavaScript, a file too large to read brings back the documents page with the
// limit stated at the field it was chosen in (a slot's, or the other documents'), not a
// bare 413.
func TestPlainFormUploadTooLargeToRead(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.WithEnv("PORTAL_MAX_UPLOAD_BYTES", "1024"))
	c, rep := signIn(t, env, "rep@example.com", models.RoleSalesRep)
	a := newApplication(t, env, rep)
	requireDocuments(t, env, a, "voided_check")
	path := documents.SectionPath(a.ID)
	c.Get(path)
	big := append(append([]byte{}, samplePDF...), make([]byte, 3<<20)...)
	for _, tt := range []struct{ action, location, field string }{
		{path + "?slot=voided_check", path + "?refused=too-large&slot=voided_check",
			`<small id="slot-error-voided_check" class="field-error" role="alert">The file is larger than the 1 KiB limit.</small>`},
		{path, path + "?refused=too-large",
			`<small id="doc-file-error" class="field-error" role="alert">The file is larger than the 1 KiB limit.</small>`},
	} {
		body, ctype := multipartForm(t,
			part{Name: "csrf_token", Body: []byte(c.CSRF())},
			part{Name: "doc_type", Body: []byte("voided_check")},
			part{Name: "file", File: "huge.pdf", Body: big})
		res := c.Do(http.MethodPost, tt.action, body, http.Header{"Content-Type": {ctype}})
		if res.Status != http.StatusSeeOther || res.Location != tt.location {
			t.Fatalf("%s: %d %q, want 303 to %s", tt.action, res.Status, res.Location, tt.location)
		}
		page := c.Get(res.Location)
		if page.Status != http.StatusOK || !strings.Contains(page.Body, tt.field) {
			t.Errorf("%s: the page does not state the limit at the field:\n%s", tt.action, page.Body)
		}
	}
	if n := len(documentsOf(t, env, a.ID)); n != 0 {
		t.Errorf("documents = %d, want none", n)
	}
}

func TestPlainFormUpload(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	c, rep := signIn(t, env, "rep@example.com", models.RoleSalesRep)
	a := newApplication(t, env, rep)
	path := documents.SectionPath(a.ID)
	c.Get(path)

	post := func(docType, file string, content []byte) apptest.Response {
		body, ctype := multipartForm(t,
			part{Name: "csrf_token", Body: []byte(c.CSRF())},
			part{Name: "doc_type", Body: []byte(docType)},
			part{Name: "file", File: file, Body: content})
		return c.Do(http.MethodPost, path, body, http.Header{"Content-Type": {ctype}})
	}
	res := post("voided_check", "check.pdf", samplePDF)
	if res.Status != http.StatusSeeOther || res.Location != path {
		t.Fatalf("plain upload: %d %q\n%s", res.Status, res.Location, res.Body)
	}
	if page := c.Get(path); !strings.Contains(page.Body, "Uploaded check.pdf.") || !strings.Contains(page.Body, "Voided check or bank letter") {
		t.Fatalf("page after upload lacks the flash or the document:\n%s", page.Body)
	}

	res = post("voided_check", "notes.pdf", []byte("just some text\n"))
	if res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("refused plain upload: %d", res.Status)
	}
	for _, want := range []string{
		`id="doc-file-error" class="field-error" role="alert">This file is a text file, not a PDF, PNG, JPEG, TIFF or HEIC document.`,
		`aria-describedby="doc-file-help doc-file-error" aria-invalid="true"`,
		`<option value="voided_check" selected>`,
	} {
		if !strings.Contains(res.Body, want) {
			t.Errorf("re-rendered page lacks %q\n%s", want, res.Body)
		}
	}
	if n := len(documentsOf(t, env, a.ID)); n != 1 {
		t.Errorf("documents = %d, want 1", n)
	}
}

func TestHostileFileNames(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	c, rep := signIn(t, env, "rep@example.com", models.RoleSalesRep)
	a := newApplication(t, env, rep)
	tests := []struct{ name, want string }{
		{"../../etc/passwd", "passwd.pdf"},
		{`..\..\windows\system32\cmd.pdf`, "cmd.pdf"},
		{`<img src=x onerror=alert(1)>.pdf`, `<img src=x onerror=alert(1)>.pdf`},
		{"invoice\u202Efdp.exe", "invoicefdp.exe"},
		{"bank\t \tletter.pdf", "bank letter.pdf"},
		{".htaccess", "htaccess.pdf"},
		{strings.Repeat("a", 300) + ".pdf", strings.Repeat("a", 116) + ".pdf"},
		{`quote"and;semicolon.pdf`, `quote"and;semicolon.pdf`},
		{"Kontoauszug März.pdf", "Kontoauszug März.pdf"},
	}
	seen := map[uuid.UUID]bool{}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			res := upload(t, c, documents.SectionPath(a.ID), "other", tt.name, samplePDF)
			if res.Status != http.StatusCreated {
				t.Fatalf("upload %q: %d %s", tt.name, res.Status, res.Body)
			}
			d := newDocument(t, env, a.ID, seen)
			if d.DisplayName != tt.want {
				t.Errorf("display name = %q, want %q", d.DisplayName, tt.want)
			}
			if d.StorageKey != documents.StorageKey(a.ID, d.ID) {
				t.Errorf("storage key %q is not built from ids", d.StorageKey)
			}
			dl := c.Get(documents.SectionPath(a.ID) + "/" + d.ID.String() + "/download")
			// The download takes the extension of the type the bytes are: "invoicefdp.exe"
			// saves as "invoicefdp.pdf".
			checkServed(t, dl, "attachment", documents.ContentTypePDF, documents.DownloadName(tt.want, documents.ContentTypePDF))
		})
	}
	list := c.Get(documents.SectionPath(a.ID) + "/list")
	if strings.Contains(list.Body, "<img src=x") || !strings.Contains(list.Body, "&lt;img src=x onerror=alert(1)&gt;.pdf") {
		t.Errorf("hostile name not escaped in the list:\n%s", list.Body)
	}
	for _, key := range storedObjects(t, env) {
		if !strings.HasPrefix(key, "documents/"+a.ID.String()+"/") || strings.Count(key, "/") != 2 {
			t.Errorf("stored object %q outside documents/<application>/<document>", key)
		}
	}
}

func TestReplaceAndDelete(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	c, rep := signIn(t, env, "rep@example.com", models.RoleSalesRep)
	a := newApplication(t, env, rep)
	base := documents.SectionPath(a.ID)
	if res := upload(t, c, base, "photo_id", "old id.png", samplePNG); res.Status != http.StatusCreated {
		t.Fatalf("upload: %d %s", res.Status, res.Body)
	}
	old := documentsOf(t, env, a.ID)[0]
	env.Clock.Advance(time.Minute) // rows are ordered by their time

	res := upload(t, c, base+"/"+old.ID.String()+"/replace", "", "new id.pdf", samplePDF)
	if res.Status != http.StatusCreated || res.Header.Get("HX-Trigger") != wantTrigger {
		t.Fatalf("replace: %d %s", res.Status, res.Body)
	}
	docs := documentsOf(t, env, a.ID)
	if len(docs) != 2 || docs[0].DeletedAt == nil || docs[1].DeletedAt != nil ||
		docs[1].DocType != "photo_id" || docs[1].DisplayName != "new id.pdf" {
		t.Fatalf("after replace: %+v", docs)
	}
	if res := c.Get(base + "/" + old.ID.String() + "/download"); res.Status != http.StatusNotFound {
		t.Errorf("replaced document still served: %d", res.Status)
	}
	list := c.Get(base + "/list").Body
	if strings.Contains(list, "old id.png") || !strings.Contains(list, "new id.pdf") {
		t.Errorf("list after replace:\n%s", list)
	}
	// A document already replaced cannot be replaced again.
	if res := upload(t, c, base+"/"+old.ID.String()+"/replace", "", "x.pdf", samplePDF); res.Status != http.StatusNotFound {
		t.Errorf("replace of a replaced document: %d", res.Status)
	}

	current := docs[1]
	del := c.Do(http.MethodPost, base+"/"+current.ID.String()+"/delete", nil, http.Header{"X-CSRF-Token": {c.CSRF()}, "HX-Request": {"true"}})
	if del.Status != http.StatusOK || del.Header.Get("HX-Trigger") != wantTrigger {
		t.Fatalf("delete: %d %s", del.Status, del.Body)
	}
	if docs := documentsOf(t, env, a.ID); docs[1].DeletedAt == nil {
		t.Fatalf("deleted document still current")
	}
	if res := c.Do(http.MethodPost, base+"/"+current.ID.String()+"/delete", nil, http.Header{"X-CSRF-Token": {c.CSRF()}, "HX-Request": {"true"}}); res.Status != http.StatusNotFound {
		t.Errorf("second delete: %d", res.Status)
	}
	var actions []string
	for _, e := range eventsOf(t, env, a.ID) {
		actions = append(actions, e.Action)
	}
	want := []string{audit.ActionDocumentAdded, audit.ActionDocumentReplaced, audit.ActionDocumentDeleted}
	if strings.Join(actions, ",") != strings.Join(want, ",") {
		t.Errorf("audit trail = %v, want %v", actions, want)
	}

	// Without JavaScript, delete redirects back to the documents page.
	env.Clock.Advance(time.Minute)
	if res := upload(t, c, base, "other", "again.pdf", samplePDF); res.Status != http.StatusCreated {
		t.Fatal(res.Body)
	}
	again := documentsOf(t, env, a.ID)[2]
	plain := c.PostForm(base+"/"+again.ID.String()+"/delete", url.Values{})
	if plain.Status != http.StatusSeeOther || plain.Location != base {
		t.Errorf("plain delete: %d %q", plain.Status, plain.Location)
	}
}

func TestRequiredDocumentSlots(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	c, rep := signIn(t, env, "rep@example.com", models.RoleSalesRep)
	a := newApplication(t, env, rep)
	m := models.PricingModel{Name: "Retail", UpstreamCode: "RETAIL-1", Active: true, Version: 1,
		RequiredDocumentTypes: pq.StringArray{"voided_check", "bank_statement"}}
	m.ID = a.ID // any fresh UUID
	if err := env.DB.Gorm.Create(&m).Error; err != nil {
		t.Fatal(err)
	}
	if err := env.DB.Gorm.Model(a).Update("pricing_model_id", m.ID).Error; err != nil {
		t.Fatal(err)
	}
	list := c.Get(documents.SectionPath(a.ID) + "/list").Body
	page := c.Get(documents.SectionPath(a.ID)).Body
	for _, code := range []string{"voided_check", "bank_statement"} {
		if !strings.Contains(page, `<li id="documents.`+code+`" class="doc-slot" tabindex="-1" data-dropzone>`) ||
			!strings.Contains(page, `action="/applications/`+a.ID.String()+`/documents?slot=`+code+`"`) ||
			!strings.Contains(page, `<input type="hidden" name="doc_type" value="`+code+`">`) {
			t.Fatalf("no slot of its own for %s:\n%s", code, page)
		}
		if !strings.Contains(page, `<span id="slot-status-`+code+`" class="doc-slot-status">
  <span class="state state-attention">Missing</span>`) {
			t.Errorf("slot %s not missing", code)
		}
		// The list's refresh carries the slot's state out of band.
		if !strings.Contains(list, `<span id="slot-status-`+code+`" class="doc-slot-status" hx-swap-oob="true">
  <span class="state state-attention">Missing</span>`) {
			t.Errorf("the list's refresh does not say slot %s is missing:\n%s", code, list)
		}
	}
	upload(t, c, documents.SectionPath(a.ID), "voided_check", "check.pdf", samplePDF)
	// The list's refresh brings the slots' states with it.
	list = c.Get(documents.SectionPath(a.ID) + "/list").Body
	if !strings.Contains(list, `<span id="slot-status-voided_check" class="doc-slot-status" hx-swap-oob="true">
  <span class="state state-success">Uploaded</span> <span class="doc-slot-file">check.pdf</span>`) ||
		!strings.Contains(list, `<span id="slot-status-bank_statement" class="doc-slot-status" hx-swap-oob="true">
  <span class="state state-attention">Missing</span>`) {
		t.Fatalf("uploaded slot not done:\n%s", list)
	}
}
