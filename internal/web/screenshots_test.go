//go:build screenshots

package web_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/payportal/portal/internal/sandbox/accounts"
	"github.com/payportal/portal/internal/sandbox/kit"
	"github.com/payportal/portal/internal/testutil/apptest"
	"github.com/payportal/portal/internal/testutil/browser"
	terminalsapi "github.com/payportal/portal/internal/upstream/terminals"
)

// screenshotsAt is the fixed clock of the screenshots.
var screenshotsAt = time.Date(2026, time.November, 2, 17, 30, 0, 0, time.UTC)

// noScreenshot are pages left out: their content is random by design (the
// two-step set-up's QR code holds a fresh secret).
var noScreenshot = map[string]bool{"two-step set-up": true}

// TestScreenshots writes a PNG of every main page (the every-page test's
// table) at both widths into docs/screenshots, with an index. It runs only
// with the screenshots build tag: `make screenshots`.
func TestScreenshots(t *testing.T) {
	sandboxClock := kit.NewManualClock(screenshotsAt)
	// The terminals' clock too: their downloads are stamped with it.
	env := apptest.New(t, apptest.WithStartTime(screenshotsAt), apptest.WithSandbox(func(o *accounts.Options) { o.Clock = sandboxClock }),
		apptest.WithTerminalsClock(terminalsapi.NewManualClock(screenshotsAt)))
	s := apptest.Seed(t, env)
	ctx, cancel := context.WithTimeout(browser.New(t), 5*time.Minute)
	defer cancel()
	dir := filepath.Join("..", "..", "docs", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	old, _ := filepath.Glob(filepath.Join(dir, "*.png"))
	for _, f := range old {
		_ = os.Remove(f)
	}
	var index strings.Builder
	index.WriteString("# Screenshots\n\nThe main pages of the portal and its sandbox, written by `make screenshots` (a fixed clock, " +
		"seeded data, every user in " + apptest.ShowcaseZone + "). Each page at 1280×800 (a desktop) and 390×844 (a phone); " +
		"the pictures are whole pages, so a long page is taller than the screen. Values the sandbox generates (account ids, " +
		"the last characters of keys, transaction ids) differ from run to run; everything else reads the same.\n\n| Page | Signed in as | Desktop | Phone |\n|---|---|---|---|\n")
	signedInAs := ""
	for _, p := range everyPage {
		if noScreenshot[p.name] {
			continue
		}
		if p.as != signedInAs {
			signInAs(t, ctx, s, p.as)
			signedInAs = p.as
		}
		address := p.path(s)
		if !strings.HasPrefix(address, "http") {
			address = env.URL + address
		}
		ready := p.ready
		if ready == "" {
			ready = "main h1, h1"
		}
		slug := strings.Trim(regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(strings.ToLower(p.name), "-"), "-")
		cells := []string{}
		for _, vp := range viewports {
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(vp.w, vp.h), chromedp.Navigate(address), chromedp.WaitVisible(chromedp.CSS(ready))); err != nil {
				t.Fatalf("%s: %v", p.name, err)
			}
			// The caret and the focus ring would differ from run to run.
			if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.activeElement && document.activeElement.blur && document.activeElement.blur(); true`)); err != nil {
				t.Fatal(err)
			}
			png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatalf("%s: %v", p.name, err)
			}
			name := fmt.Sprintf("%s-%d.png", slug, vp.w)
			if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
				t.Fatal(err)
			}
			cells = append(cells, fmt.Sprintf("[![%s at %d px](%s)](%s)", p.name, vp.w, name, name))
		}
		fmt.Fprintf(&index, "| %s | %s | %s |\n", p.name, p.as, strings.Join(cells, " | "))
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(index.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
