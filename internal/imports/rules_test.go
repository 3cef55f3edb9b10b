package imports_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
)

// csvOf writes rows as CSV.
func csvOf(rows ...[]string) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.WriteAll(rows)
	return buf.Bytes()
}

// A file with its own headers: the portal maps what it recognises, asks for the rest,
// refuses a mapping that fills a field twice or lacks the legal name, then checks the
// rows by the mapping chosen.
func TestColumnMappingForFilesThatDoNotMatch(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.WithoutWorkers())
	_, c := rep(t, env, "importing.rep@example.com")
	file := csvOf(
		[]string{"Company", "Legal Name", "Tax ID", "Owner SSN", "Notes to self"},
		[]string{"Blue Fern", "Blue Fern Coffee LLC", "12-3456789", "234-56-6789", "call Monday"},
		[]string{"Red Door", "Red Door Bakery Inc", "98-7654321", "234-56-7890", ""},
	)
	status, path := upload(t, c, "", "crm-export.csv", file)
	if status != http.StatusCreated {
		t.Fatalf("upload: %d %s", status, path)
	}
	page := c.Get(path)
	if !strings.Contains(page.Body, "Which column holds what?") {
		t.Fatalf("no mapping form:\n%s", page.Body)
	}
	// "Legal Name" and "Owner SSN" are recognised; "Company" and "Tax ID" are not, so
	// the user is asked.
	for _, want := range []string{`<option value="business.legal_name" selected>`, `<option value="owners.0.ssn" selected>`} {
		if !strings.Contains(page.Body, want) {
			t.Errorf("mapping form lacks %s", want)
		}
	}
	mapping := url.Values{"columns": {"5"}, "column.0": {"business.dba"}, "column.1": {"business.legal_name"},
		"column.2": {"business.tin"}, "column.3": {"owners.0.ssn"}, "column.4": {""}}
	twice := url.Values{}
	for k, v := range mapping {
		twice[k] = v
	}
	twice.Set("column.0", "business.legal_name")
	if res := c.PostForm(path+"/mapping", twice); res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "is already filled from the column") {
		t.Fatalf("a field filled twice: %d", res.Status)
	}
	noName := url.Values{}
	for k, v := range mapping {
		noName[k] = v
	}
	noName.Set("column.1", "")
	if res := c.PostForm(path+"/mapping", noName); res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "legal name") {
		t.Fatalf("no legal name: %d", res.Status)
	}
	if res := c.PostForm(path+"/mapping", mapping); res.Status != http.StatusSeeOther {
		t.Fatalf("mapping: %d %s", res.Status, res.Body)
	}
	preview := c.Get(path)
	if !strings.Contains(preview.Body, `data-count="valid">2<`) {
		t.Fatalf("preview after mapping:\n%s", preview.Body)
	}
	// The preview shows the TIN masked.
	if strings.Contains(preview.Body, "3456789") || !strings.Contains(preview.Body, "•••• 6789") {
		t.Errorf("the preview shows the TIN unmasked")
	}
}

// The file is refused as a whole, with a message beside the file input, for what
// cannot be read; nothing of it is kept.
func TestUnreadableFilesAreRefused(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.WithoutWorkers())
	_, c := rep(t, env, "importing.rep@example.com")
	tooMany := generate(5001, 0)
	tests := []struct {
		name, want string
		file       []byte
	}{
		{"empty", "The file is empty", nil},
		{"header only", "no rows", csvOf([]string{"business.legal_name"})},
		{"not UTF-8", "not UTF-8", []byte("business.legal_name\nCaf\xe9 Luna\n")},
		{"broken quotes", "not valid CSV at line 2", []byte("business.legal_name,business.dba\n\"Open quote,x\nnext,\"y\"z\n")},
		{"more than 5,000 rows", "more than 5000 rows", tooMany.CSV},
	}
	for _, tt := range tests {
		status, body := upload(t, c, "", "f.csv", tt.file)
		if status != http.StatusUnprocessableEntity || !strings.Contains(body, tt.want) {
			t.Errorf("%s: %d %s", tt.name, status, body)
		}
	}
	if n := count(t, env, `SELECT count(*) FROM import_batches`); n != 0 {
		t.Errorf("%d batches kept of refused files", n)
	}
	if n := count(t, env, `SELECT count(*) FROM import_rows`); n != 0 {
		t.Errorf("%d rows kept of refused files", n)
	}
}

// The rows are sealed as soon as they are parsed: nothing of the file's personal data
// is readable in the database; the batch expires an hour after the upload.
func TestRowsAreSealedAndExpireAfterAnHour(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.WithoutWorkers())
	_, c := rep(t, env, "importing.rep@example.com")
	file := generate(3, 0)
	_, path := upload(t, c, "", "f.csv", file.CSV)
	var dump string
	if err := env.DB.Pool.QueryRow(context.Background(), `SELECT string_agg(cells || coalesce(errors::text, ''), ' ') FROM import_rows`).Scan(&dump); err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"101-10-1000", "12-1000000", "9876000000", "Merchant 00000"} {
		if strings.Contains(dump, secret) {
			t.Errorf("import_rows holds %q in the clear", secret)
		}
	}
	// Twice half an hour, within the sessions' idle limit.
	for range 2 {
		env.Clock.Advance(29*time.Minute + 30*time.Second)
		if res := c.Get(path); res.Status != http.StatusOK {
			t.Fatalf("before the hour: %d", res.Status)
		}
	}
	env.Clock.Advance(time.Minute)
	res := c.Get(path)
	if res.Status != http.StatusNotFound || !strings.Contains(res.Body, "expired") {
		t.Fatalf("after the hour: %d", res.Status)
	}
	if n, err := env.App.Imports.Purge(context.Background()); err != nil || n != 1 {
		t.Fatalf("purge: %d %v", n, err)
	}
	if n := count(t, env, `SELECT count(*) FROM import_rows`); n != 0 {
		t.Errorf("%d rows left after the purge", n)
	}
}

// A rep imports for themself only, and learns only of duplicates among their own
// merchants; an admin chooses the owner and sees every duplicate. Another user's
// import does not exist for them.
func TestOwnersAndWhoseDuplicatesOneSees(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	alice, a := rep(t, env, "alice@example.com")
	bob, b := rep(t, env, "bob@example.com")
	_, admin := env.SignedIn(t, "admin@example.com", models.RoleAdmin)
	file := generate(4, 0)

	if status, body := upload(t, a, bob.ID.String(), "f.csv", file.CSV); status != http.StatusUnprocessableEntity || !strings.Contains(body, "for yourself only") {
		t.Fatalf("a rep importing for another: %d %s", status, body)
	}
	_, path := upload(t, a, "", "f.csv", file.CSV)
	if res := b.Get(path); res.Status != http.StatusNotFound {
		t.Errorf("another rep sees the import: %d", res.Status)
	}
	if res := a.PostForm(path+"/import", url.Values{"on_duplicate": {"skip"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("start: %d", res.Status)
	}
	waitDone(t, env, path)

	// Bob's file holds Alice's merchants: he is not told, and gets his own drafts.
	_, bobPath := upload(t, b, "", "f.csv", file.CSV)
	if page := b.Get(bobPath); !strings.Contains(page.Body, `data-count="valid">4<`) || strings.Contains(page.Body, "alice") {
		t.Errorf("the rep is told of another rep's merchants")
	}
	// An admin importing for Bob sees Alice's merchants as duplicates.
	_, adminPath := upload(t, admin, bob.ID.String(), "f.csv", file.CSV)
	page := admin.Get(adminPath)
	if !strings.Contains(page.Body, `data-count="duplicate">4<`) || !strings.Contains(page.Body, "alice@example.com") {
		t.Errorf("the admin is not told of the duplicates:\n%s", page.Body)
	}
	if res := admin.PostForm(adminPath+"/import", url.Values{"on_duplicate": {"skip"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("admin start: %d", res.Status)
	}
	waitDone(t, env, adminPath)
	if n := count(t, env, `SELECT count(*) FROM applications WHERE owner_id = $1`, alice.ID); n != 4 {
		t.Errorf("alice owns %d", n)
	}
	if n := count(t, env, `SELECT count(*) FROM applications WHERE owner_id = $1`, bob.ID); n != 0 {
		t.Errorf("bob owns %d after an import that skipped every row", n)
	}
}

// Updating duplicates writes the file's values into the existing drafts (audited as
// such), leaves identical ones alone, and never changes a submitted application.
func TestUpdatingDuplicates(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	owner, c := rep(t, env, "importing.rep@example.com")
	file := generate(3, 0)
	_, path := upload(t, c, "", "f.csv", file.CSV)
	c.PostForm(path+"/import", url.Values{"on_duplicate": {"skip"}})
	waitDone(t, env, path)
	// The first merchant has been handed off meanwhile.
	if _, err := env.DB.Pool.Exec(context.Background(), `UPDATE applications SET status = 'linked', handoff_link = 'https://x.test/a'
		WHERE legal_name = 'Merchant 00000 LLC'`); err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(file.CSV), "Shop 00001", "Shop One Renamed", 1)
	_, again := upload(t, c, "", "f.csv", []byte(changed))
	if res := c.PostForm(again+"/import", url.Values{"on_duplicate": {"update"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("start: %d", res.Status)
	}
	waitDone(t, env, again)
	outcomes := map[string]string{}
	rows, err := env.DB.Pool.Query(context.Background(), `SELECT a.legal_name, r.outcome FROM import_rows r JOIN applications a ON a.id = r.application_id WHERE r.batch_id = $1`, batchID(t, again))
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name, outcome string
		_ = rows.Scan(&name, &outcome)
		outcomes[name] = outcome
	}
	rows.Close()
	want := map[string]string{"Merchant 00000 LLC": "refused", "Merchant 00001 LLC": "updated", "Merchant 00002 LLC": "unchanged"}
	for name, o := range want {
		if outcomes[name] != o {
			t.Errorf("%s: %q, want %q", name, outcomes[name], o)
		}
	}
	if n := count(t, env, `SELECT count(*) FROM applications WHERE owner_id = $1 AND dba = 'Shop One Renamed'`, owner.ID); n != 1 {
		t.Errorf("the update was not written")
	}
	if n := count(t, env, `SELECT count(*) FROM audit_events WHERE action = 'imported' AND 'business.dba' = ANY(fields)`); n != 1 {
		t.Errorf("%d audit entries of the update", n)
	}
	if n := count(t, env, `SELECT count(*) FROM applications`); n != 3 {
		t.Errorf("%d applications, want 3", n)
	}
}

// Two imports of the same file at once create each merchant once.
func TestTwoImportsOfOneFileAtOnce(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.WithoutWorkers())
	_, c := rep(t, env, "importing.rep@example.com")
	file := generate(300, 0)
	_, first := upload(t, c, "", "f.csv", file.CSV)
	_, second := upload(t, c, "", "f.csv", file.CSV)
	for _, p := range []string{first, second} {
		if res := c.PostForm(p+"/import", url.Values{"on_duplicate": {"skip"}}); res.Status != http.StatusSeeOther {
			t.Fatalf("start: %d", res.Status)
		}
	}
	var wg sync.WaitGroup
	for _, p := range []string{first, second} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := env.App.Imports.Import(context.Background(), batchID(t, p)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := count(t, env, `SELECT count(*) FROM applications`); n != 300 {
		t.Errorf("%d applications from two imports of 300 rows", n)
	}
	if n := count(t, env, `SELECT count(*) FROM import_rows WHERE outcome = 'skipped'`); n != 300 {
		t.Errorf("%d rows skipped", n)
	}
}

// Without JavaScript the form posts the file with the CSRF token as a field, and the
// pages answer; a refused file shows its message beside the input.
func TestUploadWithoutJavaScript(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.WithoutWorkers())
	_, c := rep(t, env, "importing.rep@example.com")
	post := func(file []byte) apptest.Response {
		c.Get("/imports")
		var body bytes.Buffer
		mw := newMultipart(&body, map[string]string{"csrf_token": c.CSRF()}, file)
		return c.Do(http.MethodPost, "/imports", &body, http.Header{"Content-Type": {mw}})
	}
	res := post(generate(2, 0).CSV)
	if res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Location, "/imports/") {
		t.Fatalf("upload: %d %s", res.Status, res.Location)
	}
	res = post([]byte("business.legal_name\n"))
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, `id="import-file-error"`) || !strings.Contains(res.Body, "no rows") {
		t.Fatalf("refused upload: %d\n%s", res.Status, res.Body)
	}
}

// The template's header is every column the form has, and the rejected-rows file keeps
// a spreadsheet from reading a cell as a formula.
func TestTemplateAndFormulaCells(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.WithoutWorkers())
	_, c := rep(t, env, "importing.rep@example.com")
	tpl := c.Get("/imports/template.csv")
	head := readCSV(t, tpl.Body)
	if tpl.Status != http.StatusOK || len(head) != 1 || head[0][0] != "business.legal_name" || !strings.Contains(tpl.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("template: %d %v", tpl.Status, head)
	}
	for _, col := range []string{"owners.0.ssn", "bank.account_number", "contact.email", "pricing.model", "notes"} {
		if !strings.Contains(tpl.Body, col) {
			t.Errorf("template lacks %s", col)
		}
	}
	file := csvOf([]string{"business.legal_name", "business.email"}, []string{`=HYPERLINK("http://evil.test","x")`, "bad"})
	_, path := upload(t, c, "", "f.csv", file)
	recs := readCSV(t, c.Get(path+"/rejected.csv").Body)
	if len(recs) != 2 || !strings.HasPrefix(recs[1][1], "'=") {
		t.Errorf("rejected rows: %v", recs)
	}
}
