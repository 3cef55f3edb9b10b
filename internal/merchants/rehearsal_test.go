package merchants_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/pricing"
	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/testutil/apptest"
	"github.com/payportal/portal/internal/testutil/seed"
)

// rehearse takes an application through the whole onboarding against the
// sandbox, over real HTTP: the rep submits it, the merchant opens the link
// and accepts the terms, and the sandbox's back office boards it. It
// returns the application and the sandbox's id of it.
func rehearse(t *testing.T, w *world, name string) (uuid.UUID, string) {
	t.Helper()
	appID, upID := handOff(t, w, name)
	acceptAndBoard(t, w, appID, upID)
	return appID, upID
}

// handOff stores a complete application of the rep and submits it, as the rep
// does; the push links it and e-mails the merchant. It returns the application
// and the sandbox's id of it.
func handOff(t *testing.T, w *world, name string) (uuid.UUID, string) {
	t.Helper()
	ctx := context.Background()
	model, err := w.env.App.Pricing.Create(ctx, w.admin, pricing.Input{Name: "Rehearsal " + name, UpstreamCode: "REH-" + strings.ToUpper(strings.ReplaceAll(name, " ", "")),
		FeeSummary: "2.9% + 30¢", Active: true})
	must(t, err)
	now := time.Now()
	d := seed.ReadyDraft(name)
	a := &models.Application{ID: uuid.New(), OwnerID: w.rep.ID, Status: models.StatusDraft, Version: 1,
		LegalName: d.Business.LegalName, DBA: d.Business.DBA, ContactName: d.Contact.Name, ContactEmail: d.Contact.Email,
		PricingModelID: &model.ID, CreatedAt: now, UpdatedAt: now}
	a.Draft, err = w.env.App.Sealer.SealJSON(a.ID, d)
	must(t, err)
	must(t, w.env.DB.Gorm.Create(a).Error)
	w.repC.Get("/applications/" + a.ID.String())
	if res := w.repC.PostForm("/applications/"+a.ID.String()+"/submit", url.Values{}); res.Status != http.StatusSeeOther {
		t.Fatalf("submit: %d\n%s", res.Status, res.Body)
	}
	var upID string
	testutil.Eventually(t, 20*time.Second, "the hand-off link", func() (bool, string) {
		var l, u *string
		var status string
		must(t, w.env.DB.Pool.QueryRow(ctx, `SELECT handoff_link, upstream_application_id, status FROM applications WHERE id = $1`, a.ID).Scan(&l, &u, &status))
		if l != nil && u != nil {
			upID = *u
		}
		return upID != "", "status " + status
	})
	return a.ID, upID
}

// acceptAndBoard has the merchant open the handed-off application's link and
// accept the terms, and the sandbox's back office board it.
func acceptAndBoard(t *testing.T, w *world, appID uuid.UUID, upID string) {
	t.Helper()
	ctx := context.Background()
	// The hand-off link is stored sealed (issue 13): open it as the portal does.
	stored, err := w.env.App.Store.Get(ctx, nil, appID)
	must(t, err)
	link, err := w.env.App.Store.OpenHandoffLink(stored)
	must(t, err)
	// The merchant opens the link (inProgress) and accepts the terms (processing).
	res, err := http.Get(link)
	must(t, err)
	res.Body.Close()
	res, err = http.PostForm(link+"/terms", url.Values{"accept": {"yes"}})
	must(t, err)
	res.Body.Close()
	if app, ok := w.env.Sandbox.Server.Application(upID); !ok || app.Status != "processing" {
		t.Fatalf("the sandbox's application after acceptance: %+v", app)
	}
	must(t, w.env.Sandbox.Server.Board(upID))
}

// In sandbox mode the boarded webhook makes the merchant and a job fetches
// its credentials from the sandbox (started by apptest, over real HTTP):
// the payment account and the terminal key and location, in test mode,
// sealed. Test connection then works against the sandbox's areas B and C;
// a wrong token and a wrong key are said in plain words. No secret is left
// readable anywhere in the database.
func TestSandboxHandsOverCredentialsAtBoarding(t *testing.T) {
	t.Parallel()
	w := newWorld(t, apptest.WithSandbox(nil))
	ctx := context.Background()
	appID, upID := rehearse(t, w, "Blue Fern")

	var id uuid.UUID
	testutil.Eventually(t, 20*time.Second, "the merchant and its credentials", func() (bool, string) {
		mid, ok, err := w.env.App.Merchants.Store().IDOfApplication(ctx, appID)
		must(t, err)
		if !ok {
			return false, "no merchant yet"
		}
		id = mid
		m := w.merchant(t, mid)
		return m.SandboxFetch == "done", "hand-over " + m.SandboxFetch + " " + m.SandboxFetchError
	})
	given, err := w.env.Sandbox.Root.Credentials(ctx, upID)
	must(t, err)
	access, err := w.env.App.Merchants.Authorize(ctx, w.admin, id, "view_only")
	must(t, err)
	if access.Payments == nil || *access.Payments != (struct{ OID, Token string }{given.Payments.OID, given.Payments.Token}) {
		t.Fatalf("payment account %v, the sandbox gave oid %s", access.Payments, given.Payments.OID)
	}
	if len(access.Locations) != 1 || access.Locations[0].ID != given.Terminals.Locations[0].LocationID ||
		access.Locations[0].APIKey != given.Terminals.APIKey || !access.Locations[0].TestMode {
		t.Fatalf("locations %+v", access.Locations)
	}
	page := w.adminC.Get("/merchants/" + id.String())
	for _, want := range []string{given.Payments.OID, "••••" + given.Payments.Token[len(given.Payments.Token)-4:],
		"Handed over by the sandbox", given.Terminals.Locations[0].LocationID, "test mode"} {
		if !strings.Contains(page.Body, want) {
			t.Errorf("the merchant page lacks %q", want)
		}
	}
	if strings.Contains(page.Body, given.Payments.Token) || strings.Contains(page.Body, given.Terminals.APIKey) {
		t.Fatal("the merchant page shows a secret in full")
	}

	// Test connection, by the owning rep.
	w.repC.Get("/merchants/" + id.String())
	if res := w.repC.PostForm("/merchants/"+id.String()+"/payments/test", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("test payments: %d\n%s", res.Status, res.Body)
	}
	if res := w.repC.PostForm("/merchants/"+id.String()+"/terminals/test", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("test terminals: %d\n%s", res.Status, res.Body)
	}
	page = w.repC.Get("/merchants/" + id.String())
	for _, want := range []string{"Connected: the processor accepted the token for account " + given.Payments.OID, "Connected: 3 terminals (EMULATOR"} {
		if !strings.Contains(page.Body, want) {
			t.Errorf("after the tests the page lacks %q", want)
		}
	}
	if !strings.Contains(w.repC.Get("/merchants").Body, "Working") {
		t.Error("the list does not show the credentials working")
	}

	// An admin rotates to wrong secrets: the tests say what is wrong.
	wrongToken := "eyJ.wrong-token-" + uuid.NewString()
	wrongKey := "wrongkey" + strings.ReplaceAll(uuid.NewString(), "-", "")
	w.adminC.Get("/merchants/" + id.String())
	for path, form := range map[string]url.Values{
		"/payments":  {"oid": {given.Payments.OID}, "token": {wrongToken}},
		"/terminals": {"api_key": {wrongKey}},
	} {
		if res := w.adminC.PostForm("/merchants/"+id.String()+path, form); res.Status != http.StatusSeeOther {
			t.Fatalf("replace %s: %d\n%s", path, res.Status, res.Body)
		}
	}
	if m := w.merchant(t, id); m.SandboxFetch != "done" {
		t.Errorf("hand-over state %s", m.SandboxFetch)
	}
	w.adminC.PostForm("/merchants/"+id.String()+"/payments/test", nil)
	w.adminC.PostForm("/merchants/"+id.String()+"/terminals/test", nil)
	page = w.adminC.Get("/merchants/" + id.String())
	for _, want := range []string{"The processor refused the token (HTTP 401)", "The terminal cloud refused the API key (HTTP 401)", "By an admin"} {
		if !strings.Contains(page.Body, want) {
			t.Errorf("after the wrong secrets the page lacks %q", want)
		}
	}
	// A second hand-over keeps what the admin entered.
	if res := w.adminC.PostForm("/merchants/"+id.String()+"/fetch", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("fetch again: %d", res.Status)
	}
	testutil.Eventually(t, 10*time.Second, "the second hand-over", func() (bool, string) {
		m := w.merchant(t, id)
		var jobs string
		_ = w.env.DB.Pool.QueryRow(ctx, `SELECT string_agg(state || ' ' || attempt || ' ' || coalesce(errors::text, ''), '; ') FROM river_job WHERE kind = 'merchant_sandbox_credentials'`).Scan(&jobs)
		return m.SandboxFetch == "done", m.SandboxFetch + " jobs: " + jobs
	})
	access, err = w.env.App.Merchants.Authorize(ctx, w.admin, id, "view_only")
	must(t, err)
	if access.Payments.Token != wrongToken || access.Locations[0].APIKey != wrongKey {
		t.Error("the sandbox's hand-over overwrote what the admin entered")
	}

	// Every use and change is in the merchant's trail.
	trail := strings.Join(w.actions(t, id), " ")
	for _, want := range []string{"merchant_boarded", "credentials_set", "location_added", "credentials_tested"} {
		if !strings.Contains(trail, want) {
			t.Errorf("trail lacks %s: %s", want, trail)
		}
	}

	assertNoPlaintext(t, w, map[string]string{
		"the sandbox's token": given.Payments.Token, "the sandbox's API key": given.Terminals.APIKey,
		"the admin's token": wrongToken, "the admin's API key": wrongKey,
	})
}

// assertNoPlaintext reads every row of every table of the portal's schema as
// text (every column: text, bytea, jsonb, arrays, River's job arguments) and
// fails when a secret appears in it.
func assertNoPlaintext(t *testing.T, w *world, secrets map[string]string) {
	t.Helper()
	ctx := context.Background()
	rows, err := w.env.DB.Pool.Query(ctx, `SELECT table_schema, table_name FROM information_schema.tables
		WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`)
	must(t, err)
	var tables []string
	for rows.Next() {
		var schema, name string
		must(t, rows.Scan(&schema, &name))
		tables = append(tables, fmt.Sprintf("%q.%q", schema, name))
	}
	rows.Close()
	if len(tables) < 10 {
		t.Fatalf("only %d tables found: %v", len(tables), tables)
	}
	var dump strings.Builder
	for _, table := range tables {
		var text *string
		must(t, w.env.DB.Pool.QueryRow(ctx, `SELECT string_agg(t::text, E'\n') FROM `+table+` t`).Scan(&text))
		if text != nil {
			dump.WriteString(*text)
		}
	}
	for what, secret := range secrets {
		// bytea columns print as hex: look for that form too.
		if strings.Contains(dump.String(), secret) || strings.Contains(dump.String(), hex.EncodeToString([]byte(secret))) {
			t.Errorf("%s is readable in the database", what)
		}
		if len(secret) > 12 && strings.Contains(dump.String(), secret[:12]) {
			t.Errorf("the start of %s is readable in the database", what)
		}
	}
	if dump.Len() < 5_000 {
		t.Errorf("the dump is suspiciously small (%d bytes)", dump.Len())
	}
}
