package signals_test

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/payportal/portal/internal/testutil/apptest"
)

// The alert rules and their tests live at the top of the repository, beside the docs
// holding their runbook.
var (
	rulesFile = filepath.Join("..", "..", "deploy", "prometheus", "alerts.yml")
	testsFile = filepath.Join("..", "..", "deploy", "prometheus", "alerts_test.yml")
	runbook   = filepath.Join("..", "..", "docs", "operations.md")
)

type rule struct {
	Alert       string            `yaml:"alert"`
	Expr        string            `yaml:"expr"`
	Annotations map[string]string `yaml:"annotations"`
}

func rules(t *testing.T) []rule {
	t.Helper()
	var file struct {
		Groups []struct {
			Rules []rule `yaml:"rules"`
		} `yaml:"groups"`
	}
	readYAML(t, rulesFile, &file)
	var out []rule
	for _, g := range file.Groups {
		out = append(out, g.Rules...)
	}
	if len(out) == 0 {
		t.Fatalf("%s holds no rules", rulesFile)
	}
	return out
}

func readYAML(t *testing.T, path string, into any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, into); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// promtool checks the rules and runs their tests (Debian's prometheus package ships it;
// `make test` installs it).
func TestAlertRulesPassPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatal("promtool is needed (Debian's prometheus package, which `make test` installs)")
	}
	for _, args := range [][]string{{"check", "rules", rulesFile}, {"test", "rules", testsFile}} {
		out, err := exec.CommandContext(t.Context(), promtool, args...).CombinedOutput()
		if err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// Every alert has a test case where it fires and one where it does not yet, and a runbook
// entry: the heading of docs/operations.md its runbook_url names.
func TestEveryAlertHasTestCasesAndARunbookEntry(t *testing.T) {
	var tests struct {
		Tests []struct {
			AlertRuleTest []struct {
				Alertname string `yaml:"alertname"`
				ExpAlerts []any  `yaml:"exp_alerts"`
			} `yaml:"alert_rule_test"`
		} `yaml:"tests"`
	}
	readYAML(t, testsFile, &tests)
	fires, quiet := map[string]bool{}, map[string]bool{}
	for _, tc := range tests.Tests {
		for _, a := range tc.AlertRuleTest {
			if len(a.ExpAlerts) > 0 {
				fires[a.Alertname] = true
			} else {
				quiet[a.Alertname] = true
			}
		}
	}
	doc, err := os.ReadFile(runbook)
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^#{2,4} +(.+)$`).FindAllStringSubmatch(string(doc), -1) {
		anchors[slug(m[1])] = true
	}
	for _, r := range rules(t) {
		if !fires[r.Alert] || !quiet[r.Alert] {
			t.Errorf("%s: %s needs a test case where it fires (%v) and one where it does not (%v)", testsFile, r.Alert, fires[r.Alert], quiet[r.Alert])
		}
		doc, anchor, _ := strings.Cut(r.Annotations["runbook_url"], "#")
		if doc != "docs/operations.md" || !anchors[anchor] || anchor != slug(r.Alert) {
			t.Errorf("%s: runbook_url %q is not the heading %q of docs/operations.md", r.Alert, r.Annotations["runbook_url"], r.Alert)
		}
	}
}

// slug is the anchor GitHub gives a heading.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// Every metric an alert names is on a running portal's /metrics, and a refused webhook
// counts there.
func TestEveryMetricAnAlertNamesIsOnMetrics(t *testing.T) {
	env := apptest.New(t, apptest.WithoutWorkers())
	res, err := http.Post(env.URL+"/webhooks/upstream", "application/json", strings.NewReader(`{"id":"x","status":"boarded","created":1,"token":"wrong"}`))
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a webhook with a wrong token: %d", res.StatusCode)
	}
	res, err = http.Get(env.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	exported := map[string]bool{}
	for _, line := range strings.Split(string(body), "\n") {
		if name, _, _ := strings.Cut(strings.SplitN(line, " ", 2)[0], "{"); name != "" && !strings.HasPrefix(line, "#") {
			exported[name] = true
		}
	}
	named := regexp.MustCompile(`\bportal_[a-z_]+\b`)
	for _, r := range rules(t) {
		for _, m := range named.FindAllString(r.Expr, -1) {
			if !exported[m] {
				t.Errorf("%s names %s, which /metrics does not export", r.Alert, m)
			}
		}
	}
	if !strings.Contains(string(body), `portal_upstream_webhooks_refused_total{reason="token"} 1`) {
		t.Errorf("the refused webhook is not counted:\n%s", grep(string(body), "webhooks_refused"))
	}
}

func grep(s, what string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if strings.Contains(line, what) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
