package documents_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/testutil/testfiles"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
	"github.com/payportal/portal/internal/testutil/browser"
)

// A rep uploads two documents on the application page, watches each one's
// progress to the end, sees the readiness checklist stop asking for them,
// deletes one and sees the checklist ask for it again.
func TestBrowserUploadTwoDocumentsAndDeleteOne(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	rep, pw := env.CreateUser(t, "rep@example.com", models.RoleSalesRep)
	a := newApplication(t, env, rep)
	requireDocuments(t, env, a, "voided_check", "bank_statement")

	dir := t.TempDir()
	check := filepath.Join(dir, "voided check.pdf")
	statement := filepath.Join(dir, "march statement.pdf")
	for _, f := range []string{check, statement} {
		// A few MiB, so the browser reports progress along the way.
		if err := os.WriteFile(f, testfiles.PDF(4<<20, uint64(len(f))), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	ctx := browser.New(t)
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	acceptDialogs(t, ctx)

	browser.SignIn(t, ctx, env.URL, rep.Email, pw)
	err := chromedp.Do(ctx,
		chromedp.Navigate(env.URL+"/applications/"+a.ID.String()+"?step=documents"),
		// The documents section arrives with htmx.
		chromedp.WaitVisible(chromedp.ID("doc-file")),
		chromedp.WaitVisible(chromedp.CSS("[data-dropzone]")),
	)
	if err != nil {
		t.Fatalf("open the application: %v", err)
	}
	checklist := func() string {
		t.Helper()
		text, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("checklist")))
		if err != nil {
			t.Fatalf("read the checklist: %v", err)
		}
		return text
	}
	if c := checklist(); !strings.Contains(c, "Voided check") || !strings.Contains(c, "Bank statement") {
		t.Fatalf("checklist does not ask for the documents:\n%s", c)
	}

	// Two uploads, one per type, each with its own progress bar.
	for i, up := range []struct{ docType, file string }{{"voided_check", check}, {"bank_statement", statement}} {
		err := chromedp.Do(ctx,
			chromedp.SetValue(chromedp.ID("doc-type"), up.docType),
			chromedp.SetUploadFiles(chromedp.ID("doc-file"), []string{up.file}),
			chromedp.Click(chromedp.CSS(`form.doc-upload button[type="submit"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-upload-item]:nth-child(`+itoa(i+1)+`) progress`)),
		)
		if err != nil {
			t.Fatalf("upload %s: %v", up.file, err)
		}
	}
	done, err := chromedp.Run(ctx, chromedp.Poll[bool](
		`document.querySelectorAll('[data-upload-item][data-state="done"]').length === 2 &&
		 Array.from(document.querySelectorAll('[data-upload-item] progress')).every(p => p.value === 100)`,
		chromedp.WithPollingTimeout(60*time.Second)))
	if err != nil || !done {
		states, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll('[data-upload-item]')).map(li => li.dataset.state + ": " + li.textContent).join("\n")`))
		t.Fatalf("uploads did not both finish: %v\n%s", err, states)
	}

	// The list and the checklist reload on their own.
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](
		`(() => { const l = document.getElementById("documents-list").textContent, c = document.getElementById("checklist").textContent;
		   return l.includes("voided check.pdf") && l.includes("march statement.pdf") && !c.includes("Voided check") && !c.includes("Bank statement"); })()`,
		chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("list or checklist did not update: %v\nchecklist:\n%s", err, checklist())
	}
	if docs := documentsOf(t, env, a.ID); len(docs) != 2 {
		t.Fatalf("documents stored: %d", len(docs))
	}
	// Each finished upload reloads the list; let the last reload land before
	// clicking inside it.
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`!document.querySelector(".htmx-request, .htmx-swapping, .htmx-settling")`,
		chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("the page did not settle: %v", err)
	}

	// Delete the voided check: it leaves the list and the checklist asks for it again.
	var checkID uuid.UUID
	for _, d := range documentsOf(t, env, a.ID) {
		if d.DocType == "voided_check" {
			checkID = d.ID
		}
	}
	// The click is one DOM event: a mouse press and release sent apart could
	// straddle a reload of the list (the last upload's), and a click needs
	// both on the same button.
	err = chromedp.Do(ctx,
		chromedp.Evaluate[chromedp.Void](`document.querySelector("#doc-`+checkID.String()+` [data-delete]").click()`),
		chromedp.WaitNotPresent(chromedp.ID("doc-"+checkID.String())),
	)
	if err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](
		`(() => { const c = document.getElementById("checklist").textContent; return c.includes("Voided check") && !c.includes("Bank statement"); })()`,
		chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("checklist did not ask for the deleted document again: %v\n%s", err, checklist())
	}
	if docs := documentsOf(t, env, a.ID); len(docs) != 2 || !deleted(docs, checkID) {
		t.Fatalf("after delete: %+v", docs)
	}
}

// requireDocuments gives the application a pricing model that requires the
// document types.
func requireDocuments(t *testing.T, env *apptest.Env, a *models.Application, types ...string) {
	t.Helper()
	m := models.PricingModel{ID: uuid.New(), Name: "Retail", UpstreamCode: "RETAIL-1", Active: true, Version: 1,
		RequiredDocumentTypes: pq.StringArray(types)}
	if err := env.DB.Gorm.Create(&m).Error; err != nil {
		t.Fatal(err)
	}
	if err := env.DB.Gorm.Model(a).Update("pricing_model_id", m.ID).Error; err != nil {
		t.Fatal(err)
	}
}

// acceptDialogs answers "OK" to every confirm() of the page.
func acceptDialogs(t *testing.T, ctx context.Context) {
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for _, err := range dialogs {
			if err != nil {
				return
			}
			if _, err := chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true}); err != nil && ctx.Err() == nil {
				t.Errorf("accept dialog: %v", err)
			}
		}
	}()
}

func deleted(docs []models.Document, id uuid.UUID) bool {
	for _, d := range docs {
		if d.ID == id {
			return d.DeletedAt != nil
		}
	}
	return false
}

func itoa(i int) string { return string(rune('0' + i)) }
