package submission_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/testutil"

	"github.com/payportal/portal/internal/drafts"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/payportal/portal/internal/app"
	"github.com/payportal/portal/internal/models"
	sandbox "github.com/payportal/portal/internal/sandbox/accounts"
	"github.com/payportal/portal/internal/testutil/apptest"
	"github.com/payportal/portal/internal/testutil/seed"
	"github.com/payportal/portal/internal/testutil/smtpserver"
)

// pricingCode is the upstream code of the pricing model the tests submit with.
const pricingCode = "FLAT-2026"

// submitEnv is a portal talking to a sandbox upstream over HTTP, with a signed-in
// rep and admin, a pricing model that requires a bank statement, and optionally
// an SMTP server that receives the merchant's e-mails.
type submitEnv struct {
	env          *apptest.Env
	sb           *sandbox.Server
	smtp         *smtpserver.Server
	rep, admin   *models.User
	repC, adminC *apptest.Client
	pricingModel uuid.UUID
	repName      string
}

type submitOptions struct {
	smtp    bool
	sandbox func(*sandbox.Options)
	extra   []apptest.Option
}

func newSubmitEnv(t *testing.T, o submitOptions) *submitEnv {
	t.Helper()
	opts := append([]apptest.Option{apptest.WithSandbox(o.sandbox)}, o.extra...)
	s := &submitEnv{}
	if o.smtp {
		s.smtp = smtpserver.Start(t)
		opts = append(opts,
			apptest.WithEnv("PORTAL_SMTP_HOST", s.smtp.Host),
			apptest.WithEnv("PORTAL_SMTP_PORT", s.smtp.PortString()),
			apptest.WithEnv("PORTAL_SMTP_TLS", "none"),
			apptest.WithEnv("PORTAL_SMTP_FROM", "Onboarding <onboarding@reseller.test>"))
	}
	s.env = apptest.New(t, opts...)
	s.sb = s.env.Sandbox.Server
	s.rep, s.repC = s.env.SignedIn(t, "rep@example.com", models.RoleSalesRep)
	s.admin, s.adminC = s.env.SignedIn(t, "admin@example.com", models.RoleAdmin)
	s.repName = s.rep.DisplayName()
	s.pricingModel = createPricingModel(t, s.env.DB.Gorm)
	return s
}

// createPricingModel stores the test pricing model, which requires a bank statement.
func createPricingModel(t testing.TB, db *gorm.DB) uuid.UUID {
	t.Helper()
	m := models.PricingModel{
		ID: uuid.New(), Name: "Flat rate", UpstreamCode: pricingCode, FeeSummary: "2.9% + 30¢",
		RequiredDocumentTypes: []string{"bank_statement"}, Active: true, Version: 1,
		CreatedAt: time.Now(), UpdatedAt: time.Now(),
	}
	if err := db.Create(&m).Error; err != nil {
		t.Fatal(err)
	}
	return m.ID
}

// newApplication stores a draft for owner, with the test pricing model and
// docs bank statements (each with different bytes), and returns it.
func (s *submitEnv) newApplication(t testing.TB, owner *models.User, d drafts.Draft, docs int) *models.Application {
	t.Helper()
	return storeApplication(t, s.env.App, s.pricingModel, owner, d, docs)
}

// storeApplication stores a draft through portal's own services.
func storeApplication(t testing.TB, portal *app.App, pricingModel uuid.UUID, owner *models.User, d drafts.Draft, docs int) *models.Application {
	t.Helper()
	ctx := context.Background()
	now := time.Now()
	a := &models.Application{
		ID: uuid.New(), OwnerID: owner.ID, Status: models.StatusDraft, Version: 1,
		LegalName: d.Business.LegalName, DBA: d.Business.DBA, ContactName: d.Contact.Name, ContactEmail: d.Contact.Email,
		PricingModelID: &pricingModel, CreatedAt: now, UpdatedAt: now,
	}
	var err error
	if a.Draft, err = portal.Sealer.SealJSON(a.ID, d); err != nil {
		t.Fatal(err)
	}
	if err := portal.DB.Gorm.Create(a).Error; err != nil {
		t.Fatal(err)
	}
	for i := range docs {
		name := "statement-" + string(rune('a'+i)) + ".pdf"
		if _, err := portal.Documents.Attach(ctx, owner, a, "bank_statement", bytes.NewReader(randomPDF(t)), name); err != nil {
			t.Fatalf("attach %s: %v", name, err)
		}
	}
	return a
}

// randomPDF is a small PDF whose bytes differ every time.
func randomPDF(t testing.TB) []byte {
	t.Helper()
	b := make([]byte, 512+int(randomByte(t))*8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n% " + hex.EncodeToString(b) + "\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n")
}

func randomByte(t testing.TB) byte {
	var b [1]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return b[0]
}

// submit presses Submit on the application page as the rep does.
func submit(t testing.TB, c *apptest.Client, id uuid.UUID) apptest.Response {
	t.Helper()
	c.Get("/applications/" + id.String())
	return c.PostForm("/applications/"+id.String()+"/submit", url.Values{})
}

// load reads an application row.
func (s *submitEnv) load(t testing.TB, id uuid.UUID) *models.Application {
	t.Helper()
	var a models.Application
	if err := s.env.DB.Gorm.Where("id = ?", id).Take(&a).Error; err != nil {
		t.Fatal(err)
	}
	return &a
}

// waitForStatus polls the application row until it has one of the statuses,
// or fails the test after the deadline.
func (s *submitEnv) waitForStatus(t testing.TB, id uuid.UUID, deadline time.Duration, want ...models.ApplicationStatus) *models.Application {
	t.Helper()
	var a *models.Application
	testutil.Eventually(t, deadline, fmt.Sprintf("application %s to be %v", id, want), func() (bool, string) {
		a = s.load(t, id)
		return slices.Contains(want, a.Status), fmt.Sprintf("it is %s (last error %q)", a.Status, deref(a.LastError))
	})
	return a
}

// documents lists an application's current documents.
func (s *submitEnv) documents(t testing.TB, id uuid.UUID) []models.Document {
	t.Helper()
	var docs []models.Document
	if err := s.env.DB.Gorm.Where("application_id = ? AND deleted_at IS NULL", id).Order("created_at").Find(&docs).Error; err != nil {
		t.Fatal(err)
	}
	return docs
}

// assertDocumentsArrived checks that the sandbox holds every document of the
// application, byte for byte.
func (s *submitEnv) assertDocumentsArrived(t testing.TB, a *models.Application) {
	t.Helper()
	for _, d := range s.documents(t, a.ID) {
		if d.UpstreamStatus != "uploaded" || d.UpstreamFileID == nil {
			t.Errorf("document %s: upstream status %s", d.DisplayName, d.UpstreamStatus)
			continue
		}
		sum, ok := s.sb.FileSHA256(deref(a.UpstreamApplicationID), *d.UpstreamFileID)
		if !ok || sum != d.SHA256 {
			t.Errorf("document %s: sandbox holds %q (found %v), we stored %q", d.DisplayName, sum, ok, d.SHA256)
		}
	}
}

// actions lists the audit actions of an application, oldest first.
func (s *submitEnv) actions(t testing.TB, id uuid.UUID) []string {
	t.Helper()
	var out []string
	err := s.env.DB.Gorm.Model(&models.AuditEvent{}).Where("subject_kind = 'application' AND subject_id = ?", id).Order("id").Pluck("action", &out).Error
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func countOf(list []string, v string) int {
	n := 0
	for _, x := range list {
		if x == v {
			n++
		}
	}
	return n
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// noRedirect is an HTTP client that returns redirects instead of following them.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// trackingLink finds the portal's /l/ link in an e-mail body.
func trackingLink(t testing.TB, body, portalURL string) string {
	t.Helper()
	i := strings.Index(body, portalURL+"/l/")
	if i < 0 {
		t.Fatalf("no tracking link to %s in:\n%s", portalURL, body)
	}
	link := body[i:]
	if j := strings.IndexAny(link, " \r\n\"<"); j >= 0 {
		link = link[:j]
	}
	return link
}

// openLink is the application's hand-off link in the clear (it is stored sealed).
func (s *submitEnv) openLink(t testing.TB, a *models.Application) string {
	t.Helper()
	link, err := s.env.App.Store.OpenHandoffLink(a)
	if err != nil {
		t.Fatal(err)
	}
	return link
}

// readyDraft is seed.ReadyDraft with an internal note, which never goes upstream.
func readyDraft(name string) drafts.Draft {
	d := seed.ReadyDraft(name)
	d.Notes = "Internal note: met at the trade show."
	return d
}
