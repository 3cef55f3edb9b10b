package browser_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/payportal/portal/internal/testutil/browser"
)

// The measure finds each kind of problem it is for, and nothing on a page that fits.
func TestSidewaysProblemsFindsWhatDoesNotFit(t *testing.T) {
	pages := map[string]string{
		"/fits": `<p class="t">Voided check or bank letter</p><button>Delete</button>`,
		"/wide": `<table><tr><td style="white-space:nowrap">` + strings.Repeat("wide ", 200) + `</td></tr></table>`,
		"/cut":  `<div style="overflow:hidden;width:100%"><button style="margin-left:120vw">Delete</button></div>`,
		"/word": `<p class="t" style="width:3em;overflow-wrap:anywhere">Voided</p>`,
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><meta name="viewport" content="width=device-width"><body style="margin:0">`+pages[r.URL.Path])
	}))
	defer ts.Close()
	ctx := browser.New(t)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844)); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"/fits": "", "/wide": "the page scrolls sideways", "/cut": "cut off: button", "/word": "word broken across lines"} {
		if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+path)); err != nil {
			t.Fatal(err)
		}
		got := strings.Join(browser.SidewaysProblems(t, ctx, ".t"), "\n")
		if want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", path, got, want)
		}
	}
}
