package terminals_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/merchants"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/payments"
	"github.com/payportal/portal/internal/terminals"
	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/testutil/apptest"
	"github.com/payportal/portal/internal/testutil/browser"
	upstream "github.com/payportal/portal/internal/upstream/terminals"
)

// portal is the whole portal on a fresh database, with the sandbox behind a
// real socket (its terminal cloud on the same manual clock as the portal's
// follower), and a boarded merchant whose terminal credentials an admin
// entered: a test location of the sandbox with its three devices.
type portal struct {
	env        *apptest.Env
	clock      *upstream.ManualClock
	admin, rep *models.User
	repPW      string
	merchantID uuid.UUID
	locationID string
}

func newPortal(t *testing.T) *portal {
	t.Helper()
	p := &portal{clock: upstream.NewManualClock(time.Now().UTC().Truncate(time.Second))}
	p.env = apptest.New(t, apptest.WithSandbox(nil), apptest.WithTerminalsClock(p.clock))
	p.admin, _ = p.env.CreateUser(t, "admin@example.com", models.RoleAdmin)
	p.rep, p.repPW = p.env.CreateUser(t, "rep@example.com", models.RoleSalesRep)
	p.merchantID = p.board(t, "Corner Cafe")
	var loc struct {
		LocationID string `json:"locationId"`
		APIKey     string `json:"apiKey"`
	}
	p.sandboxAdmin(t, http.MethodPost, "/locations", `{"name": "Corner Cafe"}`, &loc)
	p.sandboxAdmin(t, http.MethodGet, "/locations/"+loc.LocationID, "", &loc)
	ctx := context.Background()
	if err := p.env.App.Merchants.SetTerminalKey(ctx, p.admin, p.merchantID, merchants.TerminalKeyInput{APIKey: loc.APIKey}); err != nil {
		t.Fatal(err)
	}
	if err := p.env.App.Merchants.AddLocation(ctx, p.admin, p.merchantID, merchants.LocationInput{LocationID: loc.LocationID, Name: "Front of house", TestMode: true}); err != nil {
		t.Fatal(err)
	}
	p.locationID = loc.LocationID
	return p
}

// board stores an application of the rep handed off to the merchant, and
// boards it with the processor's webhook; it returns the merchant's id.
func (p *portal) board(t *testing.T, name string) uuid.UUID {
	t.Helper()
	now, upID := time.Now(), uuid.NewString()
	a := &models.Application{ID: uuid.New(), OwnerID: p.rep.ID, Status: models.StatusLinked, Version: 1,
		LegalName: name + " LLC", DBA: name, ContactName: "Jane Doe", ContactEmail: "jane@cafe.example",
		UpstreamApplicationID: &upID, HandoffLink: new("https://upstream.example/app/" + upID), LinkedAt: &now,
		CreatedAt: now, UpdatedAt: now, SubmissionCount: 1}
	var err error
	if a.Draft, err = p.env.App.Sealer.SealJSON(a.ID, drafts.Draft{Business: drafts.Business{LegalName: a.LegalName, DBA: name}}); err != nil {
		t.Fatal(err)
	}
	if err := p.env.DB.Gorm.Create(a).Error; err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"id": upID, "status": "boarded", "created": now.UnixMilli(), "token": p.env.Config.Upstream.WebhookToken})
	res, err := http.Post(p.env.URL+"/webhooks/upstream", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	id, ok, err := p.env.App.Merchants.Store().IDOfApplication(context.Background(), a.ID)
	if err != nil || !ok {
		t.Fatalf("boarding made no merchant (%d, %v)", res.StatusCode, err)
	}
	return id
}

// member adds a merchant user of the merchant with perms, with two-step
// sign-in set up, and returns them with their password.
func (p *portal) member(t *testing.T, email string, perms ...merchants.Permission) (*models.User, string) {
	t.Helper()
	ctx := context.Background()
	res, err := p.env.App.Merchants.Invite(ctx, p.admin, p.merchantID, merchants.MemberInput{Email: email, Permissions: perms})
	if err != nil {
		t.Fatal(err)
	}
	// The person follows the e-mailed link and chooses a password.
	token, _, err := p.env.App.Auth.ReInvite(ctx, p.admin, res.User, nil)
	if err != nil {
		t.Fatal(err)
	}
	password := "correct-horse-battery-" + uuid.NewString()[:8]
	u, err := p.env.App.Auth.AcceptInvitation(ctx, token, password, password)
	if err != nil {
		t.Fatal(err)
	}
	p.env.EnrolMFA(t, u)
	if u, err = p.env.App.Auth.Users().ByID(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	return u, password
}

// cashier is a member with every right a terminal needs.
func (p *portal) cashier(t *testing.T) (*models.User, string) {
	return p.member(t, "cashier@cafe.example", merchants.PermUseTerminals, merchants.PermRefund, merchants.PermVoid, merchants.PermCaptureAdjust)
}

// signIn opens a browser signed in as u.
func (p *portal) signIn(t *testing.T, u *models.User, password string) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(browser.New(t), 90*time.Second)
	t.Cleanup(cancel)
	var code []func() string
	if u.MFAEnabled() || u.Role == models.RoleMerchant || u.IsAdmin() {
		code = append(code, p.env.TOTP(t, u.Email))
	}
	browser.SignIn(t, ctx, p.env.URL, u.Email, password, code...)
	return ctx
}

// sandboxAdmin calls the sandbox's terminals admin JSON.
func (p *portal) sandboxAdmin(t *testing.T, method, path, body string, out any) {
	t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), method, p.env.Sandbox.URL+"/_sandbox/admin/api/terminals"+path, strings.NewReader(body))
	req.SetBasicAuth("admin", p.env.Config.Sandbox.AdminToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		t.Fatalf("sandbox admin %s %s: %d %s", method, path, res.StatusCode, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
	}
}

// sandboxCount is how many transactions the sandbox's terminals received.
func (p *portal) sandboxCount(t *testing.T) int {
	t.Helper()
	var txs []sandboxTx
	p.sandboxAdmin(t, http.MethodGet, "/transactions?limit=500", "", &txs)
	return len(txs)
}

// terminalsURL is the merchant's terminals page.
func (p *portal) terminalsURL() string { return p.env.URL + terminals.Path(p.merchantID) }

// advance moves the cardholder's and the follower's clock.
func (p *portal) advance(d time.Duration) { p.clock.Advance(d) }

// launches lists the merchant's launches, newest first.
func (p *portal) launches(t *testing.T) []*terminals.Launch {
	t.Helper()
	ls, err := p.env.App.Terminals.Store().RecentLaunches(context.Background(), p.merchantID, 100)
	if err != nil {
		t.Fatal(err)
	}
	return ls
}

// do runs browser actions, failing the test with what was being done.
func do(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// openForm opens the launch form of kind (its link's text) on device from
// the terminals page.
func (p *portal) openForm(t *testing.T, ctx context.Context, device, link string) {
	t.Helper()
	do(t, ctx, "open the terminals page", chromedp.Navigate(p.terminalsURL()),
		chromedp.WaitVisible(chromedp.ID("device-"+device)))
	sel := `//li[@id="device-` + device + `"]//nav//a[normalize-space(.)="` + link + `"]`
	do(t, ctx, "open the "+link+" form on "+device, chromedp.Click(chromedp.Search(sel)),
		chromedp.WaitVisible(chromedp.ID("launch-submit")))
}

// launch fills the open form's fields (id → text) and sends it; it waits
// for the launch's page.
func launch(t *testing.T, ctx context.Context, fields map[string]string) {
	t.Helper()
	for id, v := range fields {
		do(t, ctx, "type "+id, chromedp.SendKeys(chromedp.ID(id), v))
	}
	do(t, ctx, "send to the terminal", chromedp.Click(chromedp.ID("launch-submit")),
		chromedp.WaitVisible(chromedp.ID("launch-status")))
}

// waitState waits for the launch page's live part to show a state.
func waitState(t *testing.T, ctx context.Context, label string) string {
	t.Helper()
	var text string
	testutil.Eventually(t, 20*time.Second, "the launch page to show "+label, func() (bool, string) {
		v, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("launch-status")))
		if err != nil {
			return false, err.Error()
		}
		text = v
		return strings.Contains(v, label), v
	})
	return text
}

// ledger reads the payments ledger (terminal lines carry no sealed data).
func (p *portal) ledger() *payments.Ledger { return payments.NewLedger(p.env.DB.Pool, nil, time.Now) }
