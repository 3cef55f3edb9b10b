package webhooks_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/payportal/portal/internal/apikeys"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/a11y"
	"github.com/payportal/portal/internal/testutil/apptest"
	"github.com/payportal/portal/internal/testutil/browser"
)

// An admin registers an endpoint with the keyboard and mouse as on any form: the form
// refused shows each message beside its field and passes the accessibility audit; the
// endpoint's page then shows the secret once, with its copy button.
func TestBrowserRegisterAnEndpoint(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	admin, adminPW := env.CreateUser(t, "admin@example.com", models.RoleAdmin)
	if _, _, err := env.App.APIKeys.Create(context.Background(), admin, apikeys.NewKey{Name: "Salon Pro", Scope: apikeys.ScopeReseller,
		Access: apikeys.AccessRead}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(browser.New(t), 2*time.Minute)
	defer cancel()
	browser.SignIn(t, ctx, env.URL, admin.Email, adminPW, env.TOTP(t, admin.Email))
	audit := func(name string) {
		t.Helper()
		for _, v := range a11y.Audit(t, ctx) {
			t.Errorf("%s: %s", name, v)
		}
	}

	if err := chromedp.Do(ctx, chromedp.Navigate(env.URL+"/admin/webhooks"), chromedp.Click(chromedp.ID("new-endpoint")),
		chromedp.WaitVisible(chromedp.ID("url")),
		chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('input[name=events]').forEach(e => e.checked = false)`),
		chromedp.Click(chromedp.ID("create-endpoint")), chromedp.WaitVisible(chromedp.ID("url-error"))); err != nil {
		t.Fatal(err)
	}
	audit("the form refused")
	errs, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('.field-error')).map(e => e.id)`))
	if err != nil || strings.Join(errs, " ") != "url-error key-error events-error" {
		t.Fatalf("messages beside %v (%v)", errs, err)
	}

	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("url"), "http://127.0.0.1:9/payportal"),
		chromedp.SetValue(chromedp.ID("key_id"), keyValue(t, ctx)),
		chromedp.Click(chromedp.CSS(`input[value="application.boarded"]`)),
		chromedp.Click(chromedp.ID("create-endpoint")), chromedp.WaitVisible(chromedp.ID("issued-secret"))); err != nil {
		t.Fatal(err)
	}
	audit("the endpoint with its secret")
	secret, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('issued-secret').textContent`))
	if err != nil || !strings.HasPrefix(secret, "whsec_") || len(secret) != 50 {
		t.Fatalf("secret %q (%v)", secret, err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`nav[aria-label=breadcrumb] a`)), chromedp.WaitVisible(chromedp.ID("webhook-endpoints"))); err != nil {
		t.Fatal(err)
	}
	if body, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`)); strings.Contains(body, secret) {
		t.Fatal("the list shows the secret")
	}
}

// keyValue is the value of the form's one API key.
func keyValue(t *testing.T, ctx context.Context) string {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#key_id option[value]:not([value=""])').value`))
	if err != nil {
		t.Fatal(err)
	}
	return v
}
