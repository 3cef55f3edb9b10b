package pricing_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/pricing"
	"github.com/payportal/portal/internal/testutil/apptest"
	"github.com/payportal/portal/internal/testutil/browser"
)

// An admin fills the new-model form with the keyboard alone, meets a taken
// code, reads the message beside the field, fixes it and saves.
func TestBrowserAdminCreatesModelWithTheKeyboard(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	admin, pw := env.CreateUser(t, "admin@example.com", models.RoleAdmin)
	if _, err := env.App.Pricing.Create(context.Background(), admin, pricing.Input{
		Name: "Existing", UpstreamCode: "FLAT-1", FeeSummary: "2.9%", Active: true,
	}); err != nil {
		t.Fatal(err)
	}

	ctx := browser.New(t)
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	err := chromedp.Do(ctx,
		chromedp.Navigate(env.URL+"/login"),
		chromedp.SendKeys(chromedp.CSS(`input[name="email"]`), "admin@example.com"),
		chromedp.SendKeys(chromedp.CSS(`input[name="password"]`), pw+"\r"),
		// Admins sign in in two steps: the authenticator's code comes next.
		chromedp.WaitVisible(chromedp.ID("code")),
		chromedp.SendKeys(chromedp.ID("code"), env.TOTP(t, "admin@example.com")()+"\r"),
		chromedp.WaitVisible(chromedp.CSS(`nav a[href="/admin/pricing"]`)),
		chromedp.Navigate(env.URL+"/admin/pricing/new"),
		chromedp.WaitVisible(chromedp.ID("pm-name")),
		chromedp.Focus(chromedp.ID("pm-name")),
		// name, code, fee summary, description, the note for admins (left
		// empty); then the device radios (Space picks "yes"), the document
		// checkboxes, the switch and the button.
		chromedp.KeyEvent("Flat rate with terminal\tFLAT-1\t2.95% per transaction\tWith a terminal\t\t \t \t\t\t \t\t\t\t\t\r"),
		chromedp.WaitVisible(chromedp.ID("pm-code-error")),
	)
	if err != nil {
		t.Fatalf("fill and submit: %v", err)
	}
	msg, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("pm-code-error")))
	if err != nil || !strings.Contains(msg, "“Existing” already uses this code") {
		t.Fatalf("message beside the code: %q, %v", msg, err)
	}
	invalid, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.ID("pm-code"), "aria-invalid"))
	if err != nil || invalid.Value != "true" {
		t.Fatalf("code field aria-invalid = %+v, %v", invalid, err)
	}
	for id, want := range map[string]string{"pm-name": "Flat rate with terminal", "pm-fee": "2.95% per transaction", "pm-description": "With a terminal"} {
		if got, err := chromedp.Run(ctx, chromedp.Value(chromedp.ID(id))); err != nil || got != want {
			t.Errorf("%s kept %q, want %q (%v)", id, got, want, err)
		}
	}
	checked, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`[...document.querySelectorAll("input:checked")].map(e => e.id)`))
	if err != nil || strings.Join(checked, ",") != "pm-device-yes,pm-doc-0,pm-doc-3,pm-active" {
		t.Fatalf("ticked after the refusal: %v, %v", checked, err)
	}

	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`a[href="#pm-code"]`)),
		chromedp.Clear(chromedp.ID("pm-code")),
		chromedp.SendKeys(chromedp.ID("pm-code"), "FLAT-TERM-295\r"),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-pricing-model="FLAT-TERM-295"]`)),
	)
	if err != nil {
		t.Fatalf("fix the code and save: %v", err)
	}
	flash, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("flashes")))
	if err != nil || !strings.Contains(flash, "Pricing model “Flat rate with terminal” created.") {
		t.Fatalf("flash: %q, %v", flash, err)
	}
	m, err := env.App.Pricing.ListSelectable(context.Background())
	if err != nil || len(m) != 2 || m[1].Name != "Flat rate with terminal" || !m[1].DevicePurchased ||
		strings.Join(m[1].RequiredDocumentTypes, ",") != "voided_check,photo_id" {
		t.Fatalf("stored: %+v, %v", m, err)
	}
}
