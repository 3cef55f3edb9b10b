// Package a11y audits pages in the test browser with axe-core (pinned in
// package.json, installed by `make test`), so that accessibility problems fail
// tests like any other bug.
package a11y

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// Violation is one failed axe rule on a page.
type Violation struct {
	ID      string   `json:"id"`
	Impact  string   `json:"impact"`
	Help    string   `json:"help"`
	Targets []string `json:"targets"`
}

func (v Violation) String() string {
	return fmt.Sprintf("%s (%s): %s at %s", v.ID, v.Impact, v.Help, strings.Join(v.Targets, ", "))
}

// script reads axe-core from node_modules at the repository root.
func script(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(file), "..", "..", "..", "node_modules", "axe-core", "axe.min.js")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("a11y: axe-core is not installed (%v); run `make test`, which installs it from package.json", err)
	}
	return string(b)
}

// Audit runs axe-core's WCAG 2.1 A and AA rules on the page open in ctx and
// returns the violations of serious or critical impact. The script is
// evaluated through DevTools, which the page's Content-Security-Policy does
// not restrict.
func Audit(t testing.TB, ctx context.Context) []Violation {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](script(t)+";true")); err != nil {
		t.Fatalf("a11y: load axe-core: %v", err)
	}
	const run = `axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}})
		.then(r => r.violations
			.filter(v => v.impact === "serious" || v.impact === "critical")
			.map(v => ({id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map(n => n.target.join(" "))})))`
	violations, err := chromedp.Run(ctx, chromedp.Evaluate[[]Violation](run, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("a11y: run axe-core: %v", err)
	}
	return violations
}
