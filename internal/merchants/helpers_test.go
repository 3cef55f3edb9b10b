package merchants_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/merchants"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
)

const webhookToken = "merchants-test-webhook-token"

// world is a portal with an admin, the owning rep and another rep, each
// signed in.
type world struct {
	env                  *apptest.Env
	admin, rep, other    *models.User
	adminC, repC, otherC *apptest.Client
	adminPW, repPW       string
}

func newWorld(t *testing.T, opts ...apptest.Option) *world {
	t.Helper()
	opts = append([]apptest.Option{apptest.WithEnv("PORTAL_UPSTREAM_WEBHOOK_TOKEN", webhookToken)}, opts...)
	w := &world{env: apptest.New(t, opts...)}
	w.admin, w.adminPW = w.env.CreateUser(t, "admin@example.com", models.RoleAdmin)
	w.adminC = w.env.Client(t)
	w.adminC.Login(w.admin.Email, w.adminPW)
	w.rep, w.repPW = w.env.CreateUser(t, "rep@example.com", models.RoleSalesRep)
	w.repC = w.env.Client(t)
	w.repC.Login(w.rep.Email, w.repPW)
	w.other, w.otherC = w.env.SignedIn(t, "other@example.com", models.RoleSalesRep)
	return w
}

// linkedApplication stores an application of owner that was handed off to
// the merchant, with the upstream id upID, as the push leaves it.
func (w *world) linkedApplication(t *testing.T, owner *models.User, name, upID string) uuid.UUID {
	t.Helper()
	now := time.Now()
	a := &models.Application{
		ID: uuid.New(), OwnerID: owner.ID, Status: models.StatusLinked, Version: 1, LegalName: name + " LLC", DBA: name,
		ContactName: "Jane Doe", ContactEmail: "jane@" + strings.ToLower(strings.ReplaceAll(name, " ", "")) + ".example",
		UpstreamApplicationID: &upID, HandoffLink: new("https://upstream.example/app/" + upID), LinkedAt: &now,
		CreatedAt: now, UpdatedAt: now, SubmissionCount: 1,
	}
	d := drafts.Draft{Business: drafts.Business{LegalName: a.LegalName, DBA: name, TIN: "12-3456789"}, Notes: "Internal note: a secret of the reseller."}
	var err error
	if a.Draft, err = w.env.App.Sealer.SealJSON(a.ID, d); err != nil {
		t.Fatal(err)
	}
	if err := w.env.DB.Gorm.Create(a).Error; err != nil {
		t.Fatal(err)
	}
	return a.ID
}

// webhook posts an upstream status webhook and returns the status code.
func (w *world) webhook(t *testing.T, upID, status string, created time.Time) int {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"id": upID, "status": status, "created": created.UnixMilli(), "token": w.env.Config.Upstream.WebhookToken})
	res, err := http.Post(w.env.URL+"/webhooks/upstream", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNoContent {
		t.Fatalf("webhook %s %s: %d", upID, status, res.StatusCode)
	}
	return res.StatusCode
}

// boarded stores a linked application of owner, boards it by webhook and
// returns the merchant's id.
func (w *world) boarded(t *testing.T, owner *models.User, name string) (merchantID, appID uuid.UUID, upID string) {
	t.Helper()
	upID = uuid.NewString()
	appID = w.linkedApplication(t, owner, name, upID)
	w.webhook(t, upID, "boarded", time.Now().Add(-time.Hour))
	return w.merchantOf(t, appID), appID, upID
}

// merchantOf returns an application's merchant, failing without one.
func (w *world) merchantOf(t *testing.T, appID uuid.UUID) uuid.UUID {
	t.Helper()
	id, ok, err := w.env.App.Merchants.Store().IDOfApplication(context.Background(), appID)
	if err != nil || !ok {
		t.Fatalf("no merchant for application %s (%v)", appID, err)
	}
	return id
}

// merchant loads a merchant.
func (w *world) merchant(t *testing.T, id uuid.UUID) *merchants.Merchant {
	t.Helper()
	m, err := w.env.App.Merchants.Store().Get(context.Background(), nil, id)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// count runs a count query.
func (w *world) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := w.env.DB.Pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// actions lists a merchant's audit actions, oldest first.
func (w *world) actions(t *testing.T, id uuid.UUID) []string {
	t.Helper()
	rows, err := w.env.DB.Pool.Query(context.Background(),
		`SELECT action FROM audit_events WHERE subject_kind = 'merchant' AND subject_id = $1 ORDER BY id`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var a string
		if err := rows.Scan(&a); err != nil {
			t.Fatal(err)
		}
		out = append(out, a)
	}
	return out
}

// outbox lists the messages of a kind, oldest first.
func (w *world) outbox(t *testing.T, kind mail.Kind) []mail.Message {
	t.Helper()
	page, err := w.env.App.Outbox.List(context.Background(), mail.ListParams{PerPage: 500})
	if err != nil {
		t.Fatal(err)
	}
	var out []mail.Message
	for i := len(page.Messages) - 1; i >= 0; i-- {
		if page.Messages[i].Kind == kind {
			out = append(out, page.Messages[i])
		}
	}
	return out
}

// member invites a person through the merchant page as the admin, with perms,
// accepts the invitation through its e-mailed link with a password, and
// returns the user, their password and a signed-in client (two-step sign-in
// set up when the permissions require it).
func (w *world) member(t *testing.T, merchantID uuid.UUID, email string, perms ...merchants.Permission) (*models.User, string, *apptest.Client) {
	t.Helper()
	form := map[string][]string{"email": {email}, "name": {"Staff " + email}}
	for _, p := range perms {
		form["permissions"] = append(form["permissions"], string(p))
	}
	w.adminC.Get("/merchants/" + merchantID.String())
	res := w.adminC.PostForm("/merchants/"+merchantID.String()+"/members", form)
	if res.Status != http.StatusSeeOther {
		t.Fatalf("invite %s: %d\n%s", email, res.Status, res.Body)
	}
	u, err := w.env.App.Auth.Users().ByEmail(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	c := w.env.Client(t)
	password := "Correct-horse-battery-staple-" + uuid.NewString()[:6]
	link := invitationLink(t, w, email)
	c.Get(link)
	res = c.PostForm(link, map[string][]string{"new_password": {password}, "confirm_password": {password}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("accept the invitation of %s: %d\n%s", email, res.Status, res.Body)
	}
	if res.Location == "/login/mfa/setup" {
		w.env.EnrolMFA(t, u)
		c = w.env.Client(t)
		c.Login(email, password)
	}
	fresh, err := w.env.App.Auth.Users().ByID(context.Background(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	return fresh, password, c
}

// invitationLink finds the newest invitation link e-mailed to email, as a
// path of the portal.
func invitationLink(t *testing.T, w *world, email string) string {
	t.Helper()
	return w.env.InvitationLink(t, w.admin, email)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

var _ = fmt.Sprintf
