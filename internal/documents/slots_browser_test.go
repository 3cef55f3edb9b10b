package documents_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/a11y"
	"github.com/payportal/portal/internal/testutil/apptest"
	"github.com/payportal/portal/internal/testutil/browser"
	"github.com/payportal/portal/internal/testutil/testfiles"
)

// Each required type is a slot that is its own picker and drop target: two files chosen in
// two slots in a row, and one dropped on a third, upload as their slots' types, each
// showing its progress inside its slot; a refused file shows its message alone. The list
// of documents then fits a phone and a desktop with its actions in view.
func TestBrowserDocumentSlots(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	rep, pw := env.CreateUser(t, "rep@example.com", models.RoleSalesRep)
	a := newApplication(t, env, rep)
	requireDocuments(t, env, a, "voided_check", "bank_statement", "business_registration")

	dir := t.TempDir()
	check := filepath.Join(dir, "Voided check from First Republic Bank, Market Street branch.pdf")
	statement := filepath.Join(dir, "Business checking statement for March 2026.pdf")
	notes := filepath.Join(dir, "notes.pdf")
	for i, f := range []string{check, statement} {
		if err := os.WriteFile(f, testfiles.PDF(256<<10, uint64(i+1)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(notes, []byte("just some text\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	ctx := browser.New(t)
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	acceptDialogs(t, ctx)
	browser.SignIn(t, ctx, env.URL, rep.Email, pw)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(env.URL+"/applications/"+a.ID.String()+"?step=documents"),
		chromedp.WaitVisible(chromedp.CSS(`[id="documents.voided_check"] input[type=file]`)),
	); err != nil {
		t.Fatalf("open the documents step: %v", err)
	}
	// With the script, choosing a file is enough: the slot's Upload button is for pages without it.
	if visible, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`!document.querySelector("[data-slot-submit]").hidden`)); visible {
		t.Error("the slot's Upload button shows although choosing a file uploads it")
	}

	// Two slots in a row, without touching any type selector.
	if err := chromedp.Do(ctx,
		chromedp.SetUploadFiles(chromedp.ID("slot-file-voided_check"), []string{check}),
		chromedp.SetUploadFiles(chromedp.ID("slot-file-bank_statement"), []string{statement}),
	); err != nil {
		t.Fatalf("choose the files: %v", err)
	}
	// A file dropped on the third slot.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
		const slot = document.getElementById("documents.business_registration");
		const dt = new DataTransfer();
		dt.items.add(new File(["%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"], "articles.pdf", {type: "application/pdf"}));
		slot.dispatchEvent(new DragEvent("dragover", {dataTransfer: dt, bubbles: true, cancelable: true}));
		slot.dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
		return true; })()`)); err != nil {
		t.Fatalf("drop: %v", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`["voided_check", "bank_statement", "business_registration"].every(code =>
		document.querySelector('[id="documents.' + code + '"] [data-upload-item][data-state="done"]'))`,
		chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		states, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll('[data-upload-item]')).map(li => li.closest("li[id]").id + " " + li.dataset.state + ": " + li.textContent).join("\n")`))
		t.Fatalf("the uploads did not each finish in their slot: %v\n%s", err, states)
	}
	types := map[string]string{}
	for _, d := range documentsOf(t, env, a.ID) {
		types[d.DisplayName] = d.DocType
	}
	if types[filepath.Base(check)] != "voided_check" || types[filepath.Base(statement)] != "bank_statement" || types["articles.pdf"] != "business_registration" {
		t.Errorf("stored types: %v", types)
	}
	// The slots say so, refreshed with the list.
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`Array.from(document.querySelectorAll(".doc-slot-status")).every(s => s.textContent.includes("Uploaded"))`,
		chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Errorf("the slots do not all say Uploaded: %v", err)
	}

	// A refused file: its message, no progress bar.
	if err := chromedp.Do(ctx, chromedp.SetUploadFiles(chromedp.ID("slot-file-voided_check"), []string{notes})); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`!!document.querySelector('[id="documents.voided_check"] [data-upload-item][data-state="error"]')`,
		chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("the refused file shows no error: %v", err)
	}
	refused, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const li = document.querySelector('[data-upload-item][data-state="error"]');
		return (li.querySelector("progress") ? "progress bar; " : "") + li.querySelector(".upload-status").textContent; })()`))
	if err != nil || refused != "This file is a text file, not a PDF, PNG, JPEG, TIFF or HEIC document." {
		t.Errorf("refused file shows %q (%v)", refused, err)
	}

	// The list fits, with its actions in view, at both widths.
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelectorAll("#documents-list .doc-item").length === 3 && !document.querySelector(".htmx-request")`,
		chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("the list did not show the three documents: %v", err)
	}
	words := ".doc-slot-title, .doc-meta, .doc-actions a, .doc-actions button, .doc-subhead"
	for _, width := range []int64{1280, 390} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 844),
			chromedp.Navigate(env.URL+"/applications/"+a.ID.String()+"?step=documents"),
			chromedp.WaitVisible(chromedp.CSS("#documents-list .doc-item"))); err != nil {
			t.Fatal(err)
		}
		for _, p := range browser.SidewaysProblems(t, ctx, words) {
			t.Errorf("%d px: %s", width, p)
		}
		visible, err := chromedp.Run(ctx, chromedp.Evaluate[int](`Array.from(document.querySelectorAll("#documents-list [data-delete], #documents-list a[href$=download]"))
			.filter(b => { const r = b.getBoundingClientRect(); return r.width > 0 && r.right <= document.documentElement.clientWidth; }).length`))
		if err != nil || visible != 6 {
			t.Errorf("%d px: %d of 6 Download and Delete controls in view (%v)", width, visible, err)
		}
		for _, v := range a11y.Audit(t, ctx) {
			t.Errorf("%d px: %s", width, v)
		}
	}
}
