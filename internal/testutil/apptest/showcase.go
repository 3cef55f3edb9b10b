package apptest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/auth"
	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/merchants"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/pricing"
)

// Person is a seeded user who can sign in.
type Person struct {
	Email, Password string
	// MFA is true when signing in asks for the authenticator's code.
	MFA bool
}

// Showcase is a portal seeded with one of everything its pages show: staff
// of each role, applications in every stage, a boarded merchant with a
// payment account, a transaction, a settled batch, a customer and a
// terminal location, e-mails in the outbox, and an application at the
// sandbox waiting for its merchant. The every-page browser test and `make
// screenshots` visit its pages; the names and amounts are fixed, so the
// pages read the same every run.
type Showcase struct {
	Env *Env
	// Admin and Rep are staff; Member is the merchant's cashier, with every
	// right; FirstAdmin is an admin who has not set up two-step sign-in.
	Admin, Rep, Member, FirstAdmin Person
	// InvitationPath is a pending staff invitation's page (/invite/…).
	InvitationPath string
	// Invited is that invited colleague's user id (their page shows an account trail).
	Invited uuid.UUID
	// Draft, Linked and Boarded are applications: one being filled in, one
	// handed to the merchant (locked), one boarded.
	Draft, Linked, Boarded uuid.UUID
	// PricingModel is a pricing model's id.
	PricingModel uuid.UUID
	// Outbox is an e-mail's id in the outbox (an invitation).
	Outbox uuid.UUID
	// Merchant is the boarded merchant; Transaction a card sale of it;
	// Batch the settled batch holding it; Customer a saved customer.
	Merchant, Transaction, Customer uuid.UUID
	Batch                           string
	// Location is the merchant's terminal location at the sandbox;
	// BackOffice a second one, whose devices were downloaded days ago.
	Location, BackOffice string
	// SandboxLink is the sandbox's merchant page of an application.
	SandboxLink string
	// SandboxAdmin is the sandbox's admin page, with basic-auth credentials.
	SandboxAdmin string
	// WebhookEndpoint is a partner's webhook endpoint the portal disabled, with its
	// delivery log; WebhookDelivery one of its deliveries (retried once).
	WebhookEndpoint, WebhookDelivery uuid.UUID
}

// ShowcaseZone is the time zone of every seeded user.
const ShowcaseZone = "America/Los_Angeles"

// Seed fills env (started WithSandbox) with the showcase.
func Seed(t testing.TB, env *Env) *Showcase {
	t.Helper()
	if env.Sandbox == nil {
		t.Fatal("apptest.Seed needs an environment started WithSandbox")
	}
	ctx := context.Background()
	s := &Showcase{Env: env}
	s.pricingExamples(t)
	admin, adminPW := env.CreateUser(t, "alex.admin@example.com", models.RoleAdmin)
	rep, repPW := env.CreateUser(t, "riley.rep@example.com", models.RoleSalesRep)
	s.Admin = Person{Email: admin.Email, Password: adminPW, MFA: true}
	s.Rep = Person{Email: rep.Email, Password: repPW}
	first, firstPW, err := env.App.Auth.CreateUser(ctx, auth.NewUser{Email: "morgan.new@example.com", Name: "Morgan New", Role: models.RoleAdmin,
		Password: "correct-horse-battery-first"})
	if err != nil || firstPW != "" {
		t.Fatalf("create the first admin: %v", err)
	}
	s.FirstAdmin = Person{Email: first.Email, Password: "correct-horse-battery-first"}
	for _, u := range []*models.User{admin, rep, first} {
		s.zone(t, u)
	}
	s.apiKeys(t, admin, rep)
	hooks := s.webhookEndpoints(t, admin)
	// An invited colleague, pending: the users page and the outbox show them.
	admins := env.Client(t)
	admins.Login(s.Admin.Email, s.Admin.Password)
	if res := admins.PostForm("/admin/users", url.Values{"email": {"sam.invited@example.com"}, "name": {"Sam Invited"},
		"role": {"sales_rep"}, "invite": {"email"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("invite a colleague: %d\n%s", res.Status, res.Body)
	}
	s.Outbox = s.firstMessage(t, "sam.invited@example.com")
	// The e-mailed link is sealed in the outbox; a fresh one is issued, as
	// an admin's "resend" does.
	invited, err := env.App.Auth.Users().ByEmail(ctx, "sam.invited@example.com")
	if err != nil {
		t.Fatal(err)
	}
	token, _, err := env.App.Auth.ReInvite(ctx, admin, invited, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.InvitationPath = "/invite/" + token
	s.Invited = invited.ID

	var model struct{ ID uuid.UUID }
	if err := env.DB.Gorm.Raw(`SELECT id FROM pricing_models ORDER BY name LIMIT 1`).Scan(&model).Error; err != nil || model.ID == uuid.Nil {
		t.Fatalf("no pricing model seeded: %v", err)
	}
	s.PricingModel = model.ID

	s.Draft = s.application(t, rep, "Harbor Books", models.StatusDraft)
	s.Linked = s.application(t, rep, "Maple Street Florist", models.StatusLinked)
	s.Boarded = s.applicationNamed(t, rep, ShowcaseLegalName, ShowcaseDBA, models.StatusLinked)
	s.application(t, rep, "Pine Hill Diner", models.StatusLinked)
	s.webhook(t, s.Linked, "processing")
	s.webhook(t, s.Boarded, "boarded")
	declined := s.application(t, rep, "Quick Cash Pawn", models.StatusLinked)
	s.webhook(t, declined, "declined")
	s.outcomes(t, rep)
	id, ok, err := env.App.Merchants.Store().IDOfApplication(ctx, s.Boarded)
	if err != nil || !ok {
		t.Fatalf("boarding made no merchant: %v", err)
	}
	s.Merchant = id
	s.merchantAccounts(t, admin)
	s.Member = s.member(t, admin, "casey.cashier@bakery.example", merchants.PermTakePayments, merchants.PermCaptureAdjust,
		merchants.PermVoid, merchants.PermRefund, merchants.PermSavedMethods, merchants.PermUseTerminals)
	s.payments(t)
	s.sandboxApplication(t)
	sandboxAdmin, err := url.Parse(env.Sandbox.URL + "/_sandbox/admin/accounts")
	if err != nil {
		t.Fatal(err)
	}
	sandboxAdmin.User = url.UserPassword("admin", env.Config.Sandbox.AdminToken)
	s.SandboxAdmin = sandboxAdmin.String()
	hooks.settle(t, s)
	return s
}

// pricingExamples seeds the example pricing models, stamped with the
// showcase's clock (the examples are stamped with the wall clock).
func (s *Showcase) pricingExamples(t testing.TB) {
	t.Helper()
	if _, err := pricing.SeedExamples(context.Background(), s.Env.DB.Gorm); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`UPDATE pricing_models SET created_at = ?, updated_at = ?`, `UPDATE pricing_model_events SET created_at = ?`} {
		args := []any{s.Env.Clock.Now(), s.Env.Clock.Now()}
		if err := s.Env.DB.Gorm.Exec(q, args[:strings.Count(q, "?")]...).Error; err != nil {
			t.Fatal(err)
		}
	}
}

func (s *Showcase) zone(t testing.TB, u *models.User) {
	t.Helper()
	if err := s.Env.App.Auth.SetTimeZone(context.Background(), u, ShowcaseZone, true); err != nil {
		t.Fatal(err)
	}
}

// firstMessage waits for the outbox's first e-mail to to and returns its id.
func (s *Showcase) firstMessage(t testing.TB, to string) uuid.UUID {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		page, err := s.Env.App.Outbox.List(context.Background(), mail.ListParams{PerPage: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range page.Messages {
			if m.To == to {
				return m.ID
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no e-mail to %s in the outbox", to)
	return uuid.Nil
}

// application stores an application of owner named name: a draft with its
// business filled in, or one handed off to the merchant.
func (s *Showcase) application(t testing.TB, owner *models.User, name string, status models.ApplicationStatus) uuid.UUID {
	t.Helper()
	return s.applicationNamed(t, owner, name+" LLC", name, status)
}

// applicationNamed is application with a legal name of its own.
func (s *Showcase) applicationNamed(t testing.TB, owner *models.User, legal, name string, status models.ApplicationStatus) uuid.UUID {
	t.Helper()
	// Each a minute after the last, so lists read in one order every run.
	s.Env.Clock.Advance(time.Minute)
	now := s.Env.Clock.Now()
	a := &models.Application{ID: uuid.New(), OwnerID: owner.ID, Status: status, Version: 1, LegalName: legal, DBA: name,
		ContactName: "Jordan Lee", ContactEmail: "jordan@" + domainOf(name) + ".example",
		CreatedAt: now, UpdatedAt: now}
	d := drafts.Draft{Business: drafts.Business{LegalName: a.LegalName, DBA: name, EntityType: "llc", Phone: "(503) 555-0142",
		Email: a.ContactEmail, GoodsAndServices: "Retail", MonthlyVolume: "62000.00", AverageTicket: "45.00"}}
	d.AddOwner(uuid.NewString())
	if status == models.StatusLinked {
		up := uuid.NewString()
		a.UpstreamApplicationID, a.HandoffLink, a.LinkedAt, a.SubmissionCount = &up, &[]string{"https://upstream.example/app/" + up}[0], &now, 1
	}
	var err error
	if a.Draft, err = s.Env.App.Sealer.SealJSON(a.ID, d); err != nil {
		t.Fatal(err)
	}
	if err := s.Env.DB.Gorm.Create(a).Error; err != nil {
		t.Fatal(err)
	}
	return a.ID
}

// webhook reports the processor's status of a handed-off application.
func (s *Showcase) webhook(t testing.TB, id uuid.UUID, status string) {
	t.Helper()
	s.Env.Clock.Advance(time.Minute)
	var up string
	if err := s.Env.DB.Gorm.Raw(`SELECT upstream_application_id FROM applications WHERE id = ?`, id).Scan(&up).Error; err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"id": up, "status": status, "created": s.Env.Clock.Now().UnixMilli(),
		"token": s.Env.Config.Upstream.WebhookToken})
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, s.Env.URL+"/webhooks/upstream", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	if res.StatusCode >= 300 {
		t.Fatalf("webhook %s: %d", status, res.StatusCode)
	}
}

// merchantAccounts opens the merchant's payment account and a terminal
// location at the sandbox and enters their credentials as an admin does.
func (s *Showcase) merchantAccounts(t testing.TB, admin *models.User) {
	t.Helper()
	ctx := context.Background()
	var acct struct{ OID, Token string }
	s.sandboxJSON(t, http.MethodPost, "/_sandbox/admin/api/payments/accounts", map[string]string{"name": "Corner Bakery"}, &acct)
	if err := s.Env.App.Merchants.SetPaymentAccount(ctx, admin, s.Merchant, merchants.PaymentInput{OID: acct.OID, Token: acct.Token}); err != nil {
		t.Fatal(err)
	}
	var loc struct {
		LocationID string `json:"locationId"`
		APIKey     string `json:"apiKey"`
	}
	// Both locations share the merchant's API key (one application at the cloud).
	newLocation := map[string]string{"name": "Corner Bakery", "applicationId": s.Boarded.String()}
	s.sandboxJSON(t, http.MethodPost, "/_sandbox/admin/api/terminals/locations", newLocation, &loc)
	s.sandboxJSON(t, http.MethodGet, "/_sandbox/admin/api/terminals/locations/"+loc.LocationID, nil, &loc)
	if err := s.Env.App.Merchants.SetTerminalKey(ctx, admin, s.Merchant, merchants.TerminalKeyInput{APIKey: loc.APIKey}); err != nil {
		t.Fatal(err)
	}
	if err := s.Env.App.Merchants.AddLocation(ctx, admin, s.Merchant, merchants.LocationInput{LocationID: loc.LocationID,
		Name: "Front counter", TestMode: true}); err != nil {
		t.Fatal(err)
	}
	s.Location = loc.LocationID
	var back struct {
		LocationID string `json:"locationId"`
	}
	newLocation["name"] = "Back office"
	s.sandboxJSON(t, http.MethodPost, "/_sandbox/admin/api/terminals/locations", newLocation, &back)
	if err := s.Env.App.Merchants.AddLocation(ctx, admin, s.Merchant, merchants.LocationInput{LocationID: back.LocationID,
		Name: "Back office", TestMode: true}); err != nil {
		t.Fatal(err)
	}
	s.BackOffice = back.LocationID
}

// member invites a person to the merchant with perms; they accept with a
// password and set up two-step sign-in.
func (s *Showcase) member(t testing.TB, admin *models.User, email string, perms ...merchants.Permission) Person {
	t.Helper()
	ctx := context.Background()
	res, err := s.Env.App.Merchants.Invite(ctx, admin, s.Merchant, merchants.MemberInput{Email: email, Name: "Casey Cashier", Permissions: perms})
	if err != nil {
		t.Fatal(err)
	}
	token, _, err := s.Env.App.Auth.ReInvite(ctx, admin, res.User, nil)
	if err != nil {
		t.Fatal(err)
	}
	password := "correct-horse-battery-member"
	u, err := s.Env.App.Auth.AcceptInvitation(ctx, token, password, password)
	if err != nil {
		t.Fatal(err)
	}
	s.Env.EnrolMFA(t, u)
	s.zone(t, u)
	return Person{Email: email, Password: password, MFA: true}
}

var nonLetters = regexp.MustCompile(`[^a-z]+`)

// domainOf makes an e-mail domain of a business's first two words, as
// businesses do ("Corner Bakery & Café on …" has cornerbakery.example).
func domainOf(name string) string {
	words := strings.Fields(strings.ToLower(name))
	return nonLetters.ReplaceAllString(strings.Join(words[:min(2, len(words))], ""), "")
}

var formToken = regexp.MustCompile(`name="form_token" value="([^"]+)"`)

// payments takes a card sale as the cashier, settles it into a batch, takes
// a second sale left open, and saves a customer.
func (s *Showcase) payments(t testing.TB) {
	t.Helper()
	c := s.Env.Client(t)
	c.Login(s.Member.Email, s.Member.Password)
	base := "/merchants/" + s.Merchant.String()
	sale := func(amount, name, reference string) uuid.UUID {
		page := c.Get(base + "/payments/new")
		m := formToken.FindStringSubmatch(page.Body)
		if m == nil {
			t.Fatalf("no payment form (%d)", page.Status)
		}
		res := c.PostForm(base+"/payments/card", url.Values{"form_token": {strings.ReplaceAll(m[1], "&#43;", "+")}, "action": {"sale"},
			"amount": {amount}, "card_number": {"4111111111111111"}, "expiry": {fmt.Sprintf("08/%02d", s.Env.Clock.Now().Year()%100+3)},
			"security_code": {"123"}, "billing_name": {name}, "billing_zip": {"97204"}, "reference": {reference}})
		if res.Status != http.StatusSeeOther || !strings.Contains(res.Location, "/transactions/") {
			t.Fatalf("card sale: %d %s\n%s", res.Status, res.Location, res.Body)
		}
		id, err := uuid.Parse(res.Location[strings.LastIndex(res.Location, "/")+1:])
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	s.Transaction = sale("62.50", "Pat Cardholder", "INV-1001")
	s.sandboxJSON(t, http.MethodPost, "/_sandbox/admin/api/payments/settle", map[string]string{}, nil)
	open := sale("18.25", "Lee Cardholder", "INV-1002")
	s.Batch = "1"
	// A void of the settled sale, which the processor refuses, and a tip on
	// the open one: the merchant's history words each by what became of it.
	act := func(id uuid.UUID, page, action string, values url.Values) {
		m := formToken.FindStringSubmatch(c.Get(base + "/transactions/" + id.String() + page).Body)
		if m == nil {
			t.Fatalf("no %s form", action)
		}
		values.Set("form_token", strings.ReplaceAll(m[1], "&#43;", "+"))
		if res := c.PostForm(base+"/transactions/"+id.String()+"/"+action, values); res.Status != http.StatusSeeOther {
			t.Fatalf("%s: %d\n%s", action, res.Status, res.Body)
		}
	}
	act(s.Transaction, "/reverse", "reverse", url.Values{"amount": {"62.50"}})
	act(open, "", "tip", url.Values{"tip": {"3.00"}})
	res := c.PostForm(base+"/customers", url.Values{"name": {"Pat Cardholder"}, "email": {"pat@example.com"}, "reference": {"CUST-7"}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("save a customer: %d\n%s", res.Status, res.Body)
	}
	id, err := uuid.Parse(res.Location[strings.LastIndex(res.Location, "/")+1:])
	if err != nil {
		t.Fatalf("customer redirect %q: %v", res.Location, err)
	}
	s.Customer = id
	s.customers(t, c, base)
	s.terminalBadges(t, c, base)
	s.ledgerVariety(t) // last: it moves the clock past the client's session
}
