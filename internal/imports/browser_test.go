package imports_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/a11y"
	"github.com/payportal/portal/internal/testutil/apptest"
	"github.com/payportal/portal/internal/testutil/browser"
)

// A rep imports a file through the pages: picks it, sees it upload and the preview
// with the bad row beside its column, imports, and sees the progress end in the
// outcome; a file with other headers asks which column holds what. Every page passes
// the accessibility audit and none scrolls sideways on a phone.
func TestBrowserImportThroughThePages(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	rep, pw := env.CreateUser(t, "importing.rep@example.com", models.RoleSalesRep)
	dir := t.TempDir()
	good := filepath.Join(dir, "merchants.csv")
	if err := os.WriteFile(good, generate(30, 10).CSV, 0o600); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "crm.csv")
	if err := os.WriteFile(other, csvOf([]string{"Company", "Legal Name"}, []string{"Blue Fern", "Blue Fern Coffee LLC"}), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(browser.New(t), 180*time.Second)
	defer cancel()
	browser.SignIn(t, ctx, env.URL, rep.Email, pw)

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

	if err := chromedp.Do(ctx, chromedp.Navigate(env.URL+"/imports"), chromedp.WaitVisible(chromedp.ID("import-file"))); err != nil {
		t.Fatal(err)
	}
	audit("upload page")
	err := chromedp.Do(ctx,
		chromedp.SetUploadFiles(chromedp.ID("import-file"), []string{good}),
		chromedp.Click(chromedp.ID("import-submit")),
		chromedp.WaitVisible(chromedp.ID("import-summary")),
	)
	if err != nil {
		t.Fatalf("upload: %v", err)
	}
	summary := browser.TextOf(t, ctx, chromedp.CSS("#import-summary"))
	if !strings.Contains(summary, "Ready to import\n27") && !strings.Contains(summary, "27") {
		t.Errorf("summary: %q", summary)
	}
	if rows := browser.TextOf(t, ctx, chromedp.CSS(".import-problems")); !strings.Contains(rows, "business.tin") {
		t.Errorf("the bad row's column is not shown: %q", rows)
	}
	audit("preview")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("import-go")), chromedp.WaitVisible(chromedp.ID("import-outcome"))); err != nil {
		t.Fatal(err)
	}
	// The bar polls until the job is done, then the page reloads with the outcome.
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.ID("import-done"))); err != nil {
		t.Fatalf("the import never showed its outcome: %v", err)
	}
	if n := browser.TextOf(t, ctx, chromedp.CSS(`[data-count="created"]`)); n != "27" {
		t.Errorf("%s drafts created, want 27", n)
	}
	audit("outcome")

	err = chromedp.Do(ctx,
		chromedp.Navigate(env.URL+"/imports"),
		chromedp.WaitVisible(chromedp.ID("import-file")),
		chromedp.SetUploadFiles(chromedp.ID("import-file"), []string{other}),
		chromedp.Click(chromedp.ID("import-submit")),
		chromedp.WaitVisible(chromedp.ID("mapping-form")),
	)
	if err != nil {
		t.Fatalf("upload of another layout: %v", err)
	}
	audit("mapping")

	// A refused file says so beside the input, without leaving the page.
	empty := filepath.Join(dir, "empty.csv")
	if err := os.WriteFile(empty, []byte("business.legal_name\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		chromedp.Navigate(env.URL+"/imports"),
		chromedp.WaitVisible(chromedp.ID("import-file")),
		chromedp.SetUploadFiles(chromedp.ID("import-file"), []string{empty}),
		chromedp.Click(chromedp.ID("import-submit")),
		chromedp.WaitVisible(chromedp.ID("import-file-error")),
	)
	if err != nil {
		t.Fatal(err)
	}
	if msg := browser.TextOf(t, ctx, chromedp.CSS("#import-file-error")); !strings.Contains(msg, "no rows") {
		t.Errorf("message: %q", msg)
	}
	audit("refused file")
}
