package app_test

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"maps"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/auth"
	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/drafts/draftstest"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/testutil/apptest"
	"github.com/payportal/portal/internal/testutil/s3server"
)

// Issue 13's scan: a rep fills every personal-data field and uploads documents through
// the real pages, submits to the sandbox, resends the merchant's e-mail, and an admin
// invites a user. Then a full dump of the database, the document store (the local folder,
// and separately the S3 server's bucket folder) and every log line of the portal and the
// sandbox are searched for the values, the documents' bytes and every raw token and link
// (session cookie, invitation, tracked links, hand-off link): none is found.
func TestNothingReadableAtRest(t *testing.T) {
	if _, err := exec.LookPath("pg_dump"); err != nil {
		t.Fatal("pg_dump is needed (Debian's postgresql-client, which make test installs with PostgreSQL)")
	}
	srv := s3server.Start(t)
	for name, storage := range map[string][]apptest.Option{
		"local": nil,
		"s3": {
			apptest.WithEnv("PORTAL_STORAGE", "s3"), apptest.WithEnv("PORTAL_S3_ENDPOINT", srv.Endpoint),
			apptest.WithEnv("PORTAL_S3_REGION", srv.Region), apptest.WithEnv("PORTAL_S3_BUCKET", srv.Bucket),
			apptest.WithEnv("PORTAL_S3_ACCESS_KEY_ID", srv.AccessKeyID), apptest.WithEnv("PORTAL_S3_SECRET_ACCESS_KEY", srv.SecretAccessKey),
			apptest.WithEnv("PORTAL_S3_PATH_STYLE", "true"),
		},
	} {
		t.Run(name, func(t *testing.T) {
			logs := &lockedBuffer{}
			opts := append([]apptest.Option{apptest.WithSandbox(nil), apptest.WithLogOutput(logs)}, storage...)
			env := apptest.New(t, opts...)
			store := env.Config.Storage.LocalDir
			if name == "s3" {
				store = srv.Dir
			}
			secrets := fillSubmitAndHandOff(t, env)
			dump, err := exec.Command("pg_dump", "--dbname="+env.DBURL).Output()
			if err != nil {
				t.Fatalf("pg_dump: %v", err)
			}
			if len(dump) < 10000 || !bytes.Contains(dump, []byte("CREATE TABLE public.documents")) {
				t.Fatalf("the dump is not a dump (%d bytes)", len(dump))
			}
			for what, secret := range secrets {
				if bytes.Contains(dump, []byte(secret)) {
					t.Errorf("the database dump holds %s", what)
				}
				if hits := testutil.FilesContaining(t, store, []byte(secret)); len(hits) > 0 {
					t.Errorf("the document store holds %s in %v", what, hits)
				}
				if strings.Contains(logs.String(), secret) {
					t.Errorf("the logs hold %s", what)
				}
			}
			if logs.Len() == 0 {
				t.Error("no log line was captured")
			}
		})
	}
}

// fillSubmitAndHandOff does everything the scan covers and returns the secrets it made,
// by what they are.
func fillSubmitAndHandOff(t *testing.T, env *apptest.Env) map[string]string {
	t.Helper()
	ctx := context.Background()
	_, rep := env.SignedIn(t, "rep@example.com", models.RoleSalesRep)
	adminUser, admin := env.SignedIn(t, "admin@example.com", models.RoleAdmin)
	hooks := webhookSecrets(t, env, admin, adminUser)
	model := uuid.New()
	if err := env.DB.Gorm.Create(&models.PricingModel{ID: model, Name: "Flat", UpstreamCode: "FLAT-SCAN", FeeSummary: "2.9%",
		RequiredDocumentTypes: []string{"bank_statement"}, Active: true, Version: 1, CreatedAt: time.Now(), UpdatedAt: time.Now()}).Error; err != nil {
		t.Fatal(err)
	}

	// Every field through the application's forms, with distinctive personal data.
	d := draftstest.Complete(drafts.EntityLLC)
	d.Business.TIN, d.Owners[0].SSN, d.Bank.AccountNumber = "27-5308142", "532-71-4806", "7730019288412"
	id := uuid.MustParse(strings.TrimPrefix(rep.PostForm("/applications", nil).Location, "/applications/"))
	page, _ := rep.ShowApplication(id)
	ownerID := regexp.MustCompile(`name="owners.0.id" value="([^"]+)"`).FindStringSubmatch(page.Body)[1]
	for _, section := range []string{drafts.SectionBusiness, drafts.SectionOwners, drafts.SectionBank, drafts.SectionContact, drafts.SectionNotes, drafts.SectionPricing} {
		values := url.Values{}
		for _, name := range d.FieldNames() {
			v, _ := d.Get(name)
			switch {
			case drafts.SectionOf(name) != section || v == "" || v == "false":
			case name == drafts.OwnerField(0, "id"):
				values.Set(name, ownerID)
			case name == drafts.OwnerField(0, "is_control_person"):
				values.Set("owners.control_person", ownerID)
			default:
				values.Set(name, v)
			}
		}
		if section == drafts.SectionNotes {
			values.Set("notes", "Met the owner at the shop.")
		}
		if section == drafts.SectionPricing {
			values.Set(drafts.FieldPricingModel, model.String())
		}
		_, version := rep.ShowApplication(id)
		values.Set("version", version)
		if res := rep.PostForm("/applications/"+id.String()+"/sections/"+section, values); res.Status != http.StatusSeeOther {
			t.Fatalf("save %s: %d\n%.3000s", section, res.Status, res.Body)
		}
	}
	// Two documents through the upload handler: a voided check and a bank statement.
	const marker = "MARKER-scan-7f3a9c-voided-check-of-the-merchant"
	for _, docType := range []string{"voided_check", "bank_statement"} {
		pdf := fmt.Sprintf("%%PDF-1.7\n%% %s %s\n%s\n%%%%EOF\n", marker, docType, strings.Repeat("0 0 m 100 100 l S\n", 3000))
		var body bytes.Buffer
		w := multipart.NewWriter(&body)
		_ = w.WriteField("doc_type", docType)
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="file"; filename="`+docType+`.pdf"`)
		h.Set("Content-Type", "application/pdf")
		fw, _ := w.CreatePart(h)
		_, _ = fw.Write([]byte(pdf))
		_ = w.Close()
		rep.ShowApplication(id)
		res := rep.Do(http.MethodPost, "/applications/"+id.String()+"/documents", &body, http.Header{
			"Content-Type": {w.FormDataContentType()}, "X-Csrf-Token": {rep.CSRF()}, "Hx-Request": {"true"}})
		if res.Status != http.StatusCreated {
			t.Fatalf("upload %s: %d %s", docType, res.Status, res.Body)
		}
	}

	// Submitted to the sandbox, handed off, the merchant's e-mail sent again.
	rep.ShowApplication(id)
	if res := rep.PostForm("/applications/"+id.String()+"/submit", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("submit: %d\n%.3000s", res.Status, res.Body)
	}
	var a *models.Application
	testutil.Eventually(t, 60*time.Second, "the application linked", func() (bool, string) {
		var err error
		a, err = env.App.Store.Visible(ctx, nil, &models.User{Role: models.RoleAdmin}, id)
		if err != nil {
			return false, err.Error()
		}
		return a.Status == models.StatusLinked, string(a.Status)
	})
	rep.ShowApplication(id)
	if res := rep.PostForm("/applications/"+id.String()+"/handoff/resend", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("resend: %d", res.Status)
	}
	// An invitation.
	admin.Get("/admin/users")
	if res := admin.PostForm("/admin/users", url.Values{"email": {"invitee@example.com"}, "name": {"Ines Vite"}, "role": {"sales_rep"}, "invite": {"email"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("invite: %d", res.Status)
	}

	secrets := map[string]string{
		"the TIN": "27-5308142", "the TIN's digits": "275308142",
		"the SSN": "532-71-4806", "the SSN's digits": "532714806",
		"the account number":   "7730019288412",
		"the documents' bytes": marker,
		"a session cookie":     rep.Cookie(auth.SessionCookieName), "the admin's session cookie": admin.Cookie(auth.SessionCookieName),
	}
	maps.Copy(secrets, hooks())
	link, err := env.App.Store.OpenHandoffLink(a)
	if err != nil || !strings.HasPrefix(link, "http") {
		t.Fatalf("hand-off link %q: %v", link, err)
	}
	secrets["the hand-off link"] = link
	secrets["the hand-off link's path"] = strings.TrimPrefix(link, env.Sandbox.URL)
	// The raw tracked links and the invitation link, read where an admin reads them: the
	// held messages of the outbox (no SMTP server here).
	rows, err := env.DB.Pool.Query(ctx, `SELECT id::text, kind FROM mail_outbox ORDER BY created_at`)
	if err != nil {
		t.Fatal(err)
	}
	var messages [][2]string
	for rows.Next() {
		var m [2]string
		_ = rows.Scan(&m[0], &m[1])
		messages = append(messages, m)
	}
	rows.Close()
	if len(messages) != 3 {
		t.Fatalf("%d messages in the outbox, want 2 hand-off e-mails and an invitation", len(messages))
	}
	linkField := regexp.MustCompile(`id="outbox-link" type="text" readonly value="([^"]+)"`)
	for i, m := range messages {
		var page apptest.Response
		testutil.Eventually(t, 20*time.Second, "the message held", func() (bool, string) {
			page = admin.Get("/admin/outbox/" + m[0])
			return linkField.MatchString(page.Body), "not held yet"
		})
		raw := html.UnescapeString(linkField.FindStringSubmatch(page.Body)[1])
		token := raw[strings.LastIndexByte(raw, '/')+1:]
		if len(token) < 40 {
			t.Fatalf("%s link %q", m[1], raw)
		}
		secrets[fmt.Sprintf("the %s link of message %d", m[1], i+1)] = raw
		secrets[fmt.Sprintf("the %s token of message %d", m[1], i+1)] = token
	}
	for what, s := range secrets {
		if len(s) < 9 {
			t.Fatalf("%s is too short to search for: %q", what, s)
		}
	}
	return secrets
}

// lockedBuffer collects log lines written from many goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *lockedBuffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Len()
}
