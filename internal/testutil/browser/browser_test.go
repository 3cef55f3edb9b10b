package browser_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/payportal/portal/internal/testutil/browser"
)

func TestNewOpensAPage(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>ok</title><p id="greeting">hello</p>`)
	}))
	defer ts.Close()

	ctx := browser.New(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL)); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("greeting")))
	if err != nil {
		t.Fatalf("read text: %v", err)
	}
	if text != "hello" {
		t.Errorf("text = %q, want hello", text)
	}
}
