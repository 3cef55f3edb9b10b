package web_test

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
)

// badInput is one input that once answered 500 (issue 13, items 1 and 3), sent through the
// real router as a person or the upstream would send it.
type badInput struct {
	name string
	send func(t *testing.T) apptest.Response
	// status is the answer expected; message a phrase of it; kept, when set, a value the
	// page must show again as typed (HTML-escaped).
	status  int
	message string
	kept    string
}

// Every bad input of issue 13 answers 4xx with a message naming what is wrong, beside the
// field that holds it, and keeps what was typed; nothing reaches the database.
func TestBadInputAnswers4xxWithAMessage(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.WithEnv("PORTAL_UPSTREAM_WEBHOOK_TOKEN", "hook-token"))
	_, rep := env.SignedIn(t, "rep@example.com", models.RoleSalesRep)
	_, admin := env.SignedIn(t, "admin@example.com", models.RoleAdmin)
	res := rep.PostForm("/applications", nil)
	id := uuid.MustParse(strings.TrimPrefix(res.Location, "/applications/"))
	page, _ := rep.ShowApplication(id)
	ownerID := regexp.MustCompile(`name="owners.0.id" value="([^"]+)"`).FindStringSubmatch(page.Body)[1]

	// save posts one section of the application as the page's Save button does.
	save := func(section string, values url.Values) func(t *testing.T) apptest.Response {
		return func(t *testing.T) apptest.Response {
			_, version := rep.ShowApplication(id)
			values.Set("version", version)
			if section == "owners" {
				values.Set("owners.0.id", ownerID)
			}
			return rep.PostForm("/applications/"+id.String()+"/sections/"+section, values)
		}
	}
	field := func(name, value string) url.Values { return url.Values{name: {value}} }
	webhook := func(body string) func(t *testing.T) apptest.Response {
		return func(t *testing.T) apptest.Response {
			return env.Client(t).Do(http.MethodPost, "/webhooks/upstream", strings.NewReader(body), http.Header{"Content-Type": {"application/json"}})
		}
	}
	const nul = "\x00"
	const notUTF8 = "Caf\xe9 \xff"
	controlMsg := "holds an invisible control character (such as a NUL byte); remove it."
	cases := []badInput{
		// A NUL byte in a text field of every section of the application.
		{name: "NUL in the legal name", send: save("business", field("business.legal_name", "Blue"+nul+"Fern")),
			status: 422, message: "Legal name " + controlMsg, kept: "Blue"},
		{name: "NUL in the DBA", send: save("business", field("business.dba", "Fern"+nul)), status: 422, message: "DBA name " + controlMsg},
		{name: "NUL in the goods and services", send: save("business", field("business.goods_and_services", nul+"coffee")),
			status: 422, message: "Goods and services " + controlMsg},
		{name: "NUL in the business city", send: save("business", field("business.address.city", "Oak"+nul+"land")),
			status: 422, message: "City " + controlMsg},
		{name: "NUL in the TIN", send: save("business", field("business.tin", "12-34"+nul+"56789")), status: 422, message: "TIN " + controlMsg},
		{name: "NUL in an owner's first name", send: save("owners", field("owners.0.first_name", "Ja"+nul+"ne")),
			status: 422, message: "First name " + controlMsg},
		{name: "NUL in an owner's street", send: save("owners", field("owners.0.address.line1", "1 Home"+nul+" Way")),
			status: 422, message: "Street address " + controlMsg},
		{name: "NUL in the account holder", send: save("bank", field("bank.holder_name", "Jane"+nul)),
			status: 422, message: "Account holder name " + controlMsg},
		{name: "NUL in the contact's name", send: save("contact", field("contact.name", "Jane"+nul+"Doe")),
			status: 422, message: "Contact name " + controlMsg},
		{name: "NUL in the notes", send: save("notes", field("notes", "call back"+nul)), status: 422, message: "Notes " + controlMsg},
		// Invalid UTF-8 in the business and contact names.
		{name: "invalid UTF-8 in the legal name", send: save("business", field("business.legal_name", notUTF8)),
			status: 422, message: "Legal name holds characters that are not valid text; type it again."},
		{name: "invalid UTF-8 in the contact's name", send: save("contact", field("contact.name", notUTF8)),
			status: 422, message: "Contact name holds characters that are not valid text; type it again."},
		{name: "CR/LF in the contact's name", send: save("contact", field("contact.name", "Jane\r\nBcc: all@example.com")),
			status: 422, message: "Contact name must be one line, without line breaks or tabs."},
		// Numbers the processor refuses (item 3).
		{name: "201 years in business", send: save("business", field("business.years_in_business", "201")),
			status: 422, message: "Years in business must be between 0 and 200.", kept: `value="201"`},
		{name: "23-digit years in business", send: save("business", field("business.years_in_business", "12345678901234567890123")),
			status: 422, message: "Years in business can be at most 10 characters.", kept: "12345678901234567890123"},
		{name: "a monthly volume of 400 nines", send: save("business", field("business.monthly_volume", strings.Repeat("9", 400))),
			status: 422, message: "Monthly card volume can be at most 20 characters.", kept: strings.Repeat("9", 400)},
		{name: "a monthly volume past a billion", send: save("business", field("business.monthly_volume", "1000000000")),
			status: 422, message: "Monthly card volume can be at most 999,999,999.99.", kept: `value="1000000000"`},
		// Outside the application.
		{name: "NUL in the dashboard search", send: func(t *testing.T) apptest.Response { return rep.Get("/?q=%00") },
			status: 400, message: "The search " + controlMsg},
		{name: "invalid UTF-8 in the dashboard search", send: func(t *testing.T) apptest.Response { return rep.Get("/?q=%FF%FE") },
			status: 400, message: "The search holds characters that are not valid text"},
		{name: "NUL in the sign-in e-mail", send: func(t *testing.T) apptest.Response {
			c := env.Client(t)
			c.Get("/login")
			return c.PostForm("/login", url.Values{"email": {"rep@example.com" + nul}, "password": {"whatever-password"}})
		}, status: 422, message: "The e-mail address " + controlMsg},
		{name: "NUL in a pricing model's description", send: func(t *testing.T) apptest.Response {
			admin.Get("/admin/pricing/new")
			return admin.PostForm("/admin/pricing", url.Values{"name": {"Flat"}, "description": {"flat" + nul}, "upstream_code": {"FLAT-1"},
				"device_purchased": {"no"}, "fee_summary": {"2.9%"}, "active": {"true"}})
		}, status: 422, message: "The description " + controlMsg, kept: "Flat"},
		{name: "NUL in a user's name", send: func(t *testing.T) apptest.Response {
			admin.Get("/admin/users")
			return admin.PostForm("/admin/users", url.Values{"email": {"new@example.com"}, "name": {"New" + nul + "Rep"}, "role": {"sales_rep"}})
		}, status: 422, message: "The name " + controlMsg, kept: "new@example.com"},
		{name: "a 1 MB e-mail address for a new user", send: func(t *testing.T) apptest.Response {
			admin.Get("/admin/users")
			return admin.PostForm("/admin/users", url.Values{"email": {strings.Repeat("a", 1<<20) + "@example.com"}, "name": {"Big"}, "role": {"sales_rep"}})
		}, status: 422, message: "The e-mail address can be at most 254 characters."},
		{name: "a webhook created beyond Postgres' range", send: webhook(`{"id":"` + uuid.NewString() + `","status":"boarded","created":9223372036854775807,"token":"hook-token"}`),
			status: 400, message: "created must be epoch milliseconds between the years 2000 and 9999."},
		{name: "a webhook whose id holds a NUL", send: webhook(`{"id":"abc\u0000def","status":"boarded","created":1767225600000,"token":"hook-token"}`),
			status: 400, message: "id must be the upstream's application id"},
		{name: "a chunked upload without its closing boundary", send: func(t *testing.T) apptest.Response {
			rep.ShowApplication(id)
			return rep.Do(http.MethodPost, "/applications/"+id.String()+"/documents", chunked(truncatedUpload(t)), http.Header{
				"Content-Type": {"multipart/form-data; boundary=" + uploadBoundary}, "X-Csrf-Token": {rep.CSRF()}, "Hx-Request": {"true"},
			})
		}, status: 400, message: "The upload is not a complete multipart form"},
		{name: "a chunked upload without its closing boundary, CSRF in the form", send: func(t *testing.T) apptest.Response {
			rep.ShowApplication(id)
			return rep.Do(http.MethodPost, "/applications/"+id.String()+"/documents", chunked(truncatedUpload(t, "csrf_token", rep.CSRF())), http.Header{
				"Content-Type": {"multipart/form-data; boundary=" + uploadBoundary},
			})
		}, status: 400, message: "not a complete multipart form"},
		{name: "a form larger than 2 MiB", send: save("notes", field("notes", strings.Repeat("x", 3<<20))),
			status: 413, message: "The form is larger than the portal accepts"},
		{name: "a broken percent escape in a form", send: func(t *testing.T) apptest.Response {
			return rep.Do(http.MethodPost, "/applications/"+id.String()+"/sections/notes", strings.NewReader("notes=%zz&csrf_token="+rep.CSRF()),
				http.Header{"Content-Type": {"application/x-www-form-urlencoded"}})
		}, status: 400, message: "The form could not be read"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := c.send(t)
			if res.Status != c.status {
				t.Fatalf("status %d, want %d\n%.2000s", res.Status, c.status, res.Body)
			}
			if body := html.UnescapeString(res.Body); !strings.Contains(body, c.message) {
				t.Errorf("the answer lacks %q:\n%.3000s", c.message, body)
			}
			if c.kept != "" && !strings.Contains(html.UnescapeString(res.Body), html.UnescapeString(c.kept)) {
				t.Errorf("the answer does not keep what was typed (%.40q)", c.kept)
			}
		})
	}
	// Nothing of it was stored: the application is still as created, with no document.
	var legalName, contactName string
	if err := env.DB.SQL.QueryRow("SELECT legal_name, contact_name FROM applications WHERE id = $1", id).Scan(&legalName, &contactName); err != nil {
		t.Fatal(err)
	}
	if legalName != "" || contactName != "" {
		t.Errorf("stored legal name %q, contact %q; want nothing", legalName, contactName)
	}
	var docs, users, models int
	_ = env.DB.SQL.QueryRow("SELECT count(*) FROM documents WHERE application_id = $1", id).Scan(&docs)
	_ = env.DB.SQL.QueryRow("SELECT count(*) FROM users").Scan(&users)
	_ = env.DB.SQL.QueryRow("SELECT count(*) FROM pricing_models").Scan(&models)
	if docs != 0 || users != 2 || models != 0 {
		t.Errorf("stored %d documents, %d users, %d pricing models; want 0, 2, 0", docs, users, models)
	}
}

const uploadBoundary = "boundary-for-a-broken-upload"

// truncatedUpload is a multipart upload of a PDF that ends without its closing boundary,
// after optional fields given as name, value pairs.
func truncatedUpload(t *testing.T, fields ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if err := w.SetBoundary(uploadBoundary); err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(fields); i += 2 {
		_ = w.WriteField(fields[i], fields[i+1])
	}
	_ = w.WriteField("doc_type", "bank_statement")
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="statement.pdf"`)
	h.Set("Content-Type", "application/pdf")
	pw, err := w.CreatePart(h)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(pw, "%%PDF-1.7\n%s\n", strings.Repeat("statement line\n", 2000))
	return buf.Bytes() // no w.Close(): the closing boundary never comes
}

// chunked hides the body's length, so the client sends it chunked.
func chunked(b []byte) io.Reader { return io.MultiReader(bytes.NewReader(b)) }
