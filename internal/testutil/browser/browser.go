// Package browser starts a headless Chromium for tests that click through
// pages, with the flags that work on the project's build machines.
package browser

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// ChromiumPath is where Debian's chromium package installs the browser.
const ChromiumPath = "/usr/bin/chromium"

// ArtifactsEnv names the environment variable that chooses the folder for
// screenshots of failed tests. Without it a fresh folder under the system
// temporary folder is used, because t.TempDir is removed when the test ends.
const ArtifactsEnv = "PORTAL_TEST_ARTIFACTS"

// New starts a headless Chromium with a fresh profile and returns a chromedp
// context for one tab. The browser stops when the test ends; when the test
// has failed, a full-page PNG screenshot is saved first and its path logged.
// The test fails at once, with a clear message, if Chromium is not installed.
// extra adds allocator options (flags) to the defaults.
func New(t testing.TB, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	if _, err := os.Stat(ChromiumPath); err != nil {
		t.Fatalf("browser: Chromium not found at %s (install it with `apt-get install -y chromium`): %v", ChromiumPath, err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(ChromiumPath),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		// Without these the browser keeps trying to reach the closed network.
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 1024),
	)
	opts = append(opts, extra...)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(allocCtx)
	// Start the browser now, without a deadline: the first Run binds the
	// browser's life to its context.
	if err := chromedp.Do(ctx); err != nil {
		cancelTab()
		cancelAlloc()
		t.Fatalf("browser: start Chromium: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			saveScreenshot(ctx, t)
		}
		cancelTab()
		cancelAlloc()
	})
	return ctx
}

// saveScreenshot writes a full-page PNG of the tab and logs where it is.
func saveScreenshot(ctx context.Context, t testing.TB) {
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	// Quality 100 makes chromedp write PNG instead of JPEG.
	png, err := chromedp.Run(sctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Logf("browser: no screenshot of the failed test: %v", err)
		return
	}
	dir, err := artifactsDir()
	if err != nil {
		t.Logf("browser: no folder for the screenshot: %v", err)
		return
	}
	name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()) + ".png"
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Logf("browser: write screenshot: %v", err)
		return
	}
	t.Logf("browser: screenshot of the failed test saved at %s", path)
}

// artifactsDir returns a folder that outlives the test.
func artifactsDir() (string, error) {
	if dir := os.Getenv(ArtifactsEnv); dir != "" {
		return dir, os.MkdirAll(dir, 0o755)
	}
	dir, err := os.MkdirTemp("", "portal-browser-test-")
	if err != nil {
		return "", fmt.Errorf("create screenshot folder: %w", err)
	}
	return dir, nil
}
