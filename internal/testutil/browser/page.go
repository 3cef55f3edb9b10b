package browser

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TextOf returns the visible text of the element sel selects, trimmed.
func TextOf(t testing.TB, ctx context.Context, sel chromedp.CSS) string {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Text(sel))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return strings.TrimSpace(v)
}

// AcceptAllDialogs answers every confirm or beforeunload dialog with OK.
func AcceptAllDialogs(t testing.TB, ctx context.Context) {
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

// Field selects the form field whose id is a canonical field name ("owners.0.ssn"):
// the dots in it would read as classes in a plain #id selector.
func Field(name string) chromedp.CSS { return chromedp.CSS(`[id="` + name + `"]`) }

// Retype replaces the text of the field with id name as a person does: it
// focuses the field, selects what it holds and types over it, then leaves
// with Tab (which fires the change event). A field of an application step not shown is
// reached through the step's link in the stepper first. Unlike chromedp.Clear, which sets
// the value attribute, it also replaces a value already typed.
func Retype(name, text string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			// A field on a step not shown is reached as a person does: through its step.
			_, err := chromedp.Evaluate[bool](fmt.Sprintf(`(function(){ var e = document.getElementById(%q);
				var panel = e.closest("[data-step-panel][hidden]");
				if (panel) document.querySelector("#stepper a[data-step-link='" + panel.getAttribute("data-step-panel") + "']").click();
				e.focus(); e.select(); return true; })()`, name))(ctx, t)
			return err
		}),
		chromedp.KeyEvent(text+kb.Tab),
	)
}

// WaitSaved waits until an application section's status line says it saved.
func WaitSaved(t testing.TB, ctx context.Context, section string) {
	t.Helper()
	js := fmt.Sprintf(`(function(){ var s = document.querySelector('#section-%s [data-save-status]');
		return !!s && s.textContent.indexOf('Saved') === 0 && !document.querySelector('form.htmx-request'); })()`, section)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("section %s never said it saved: %v", section, err)
	}
}
