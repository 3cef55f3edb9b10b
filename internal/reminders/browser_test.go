package reminders_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/a11y"
	"github.com/payportal/portal/internal/testutil/browser"
)

// The admins' settings and an application's reminders pass the accessibility audit and
// fit a phone; the rep pauses the reminders from the application's page.
func TestBrowserReminderPages(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	admin, adminPW := env.CreateUser(t, "admin@example.com", models.RoleAdmin)
	owner, ownerPW := env.CreateUser(t, "reminded.rep@example.com", models.RoleSalesRep)
	id := linked(t, env, owner, "Browser Bagels")
	env.Clock.Advance(3 * day)
	run(t, env)

	ctx, cancel := context.WithTimeout(browser.New(t), 120*time.Second)
	defer cancel()
	audit := func(name string) {
		t.Helper()
		for _, width := range []int64{390, 1280} {
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900)); err != nil {
				t.Fatal(err)
			}
			for _, v := range a11y.Audit(t, ctx) {
				t.Errorf("%s at %d px: %s", name, width, v)
			}
			sideways, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > document.documentElement.clientWidth`))
			if err != nil || sideways {
				t.Errorf("%s at %d px scrolls sideways (%v)", name, width, err)
			}
		}
	}

	browser.SignIn(t, ctx, env.URL, admin.Email, adminPW, env.TOTP(t, admin.Email))
	if err := chromedp.Do(ctx, chromedp.Navigate(env.URL+"/admin/reminders"), chromedp.WaitVisible(browser.Field("not_opened.after_days"))); err != nil {
		t.Fatal(err)
	}
	audit("settings")
	err := chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`[id="not_opened.max_sends"]`), "42"),
		chromedp.Submit(chromedp.CSS(`[id="not_opened.max_sends"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[id="not_opened.max_sends-error"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	audit("settings refused")
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('form[action="/logout"]').submit(); true`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.ID("email"))); err != nil {
		t.Fatal(err)
	}

	browser.SignIn(t, ctx, env.URL, owner.Email, ownerPW)
	err = chromedp.Do(ctx,
		chromedp.Navigate(env.URL+"/applications/"+id.String()),
		chromedp.WaitVisible(chromedp.ID("reminders-pause")),
	)
	if err != nil {
		t.Fatal(err)
	}
	if text := browser.TextOf(t, ctx, chromedp.CSS("#reminders")); !strings.Contains(text, "Merchant has not started (1)") {
		t.Errorf("the panel does not list what was sent:\n%s", text)
	}
	audit("application with reminders")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("reminders-pause")), chromedp.WaitVisible(chromedp.ID("reminders-resume"))); err != nil {
		t.Fatalf("pause: %v", err)
	}
	if n := count(t, env, `SELECT count(*) FROM reminder_pauses WHERE application_id = $1`, id); n != 1 {
		t.Errorf("not paused")
	}
}
