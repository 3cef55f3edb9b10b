package payments_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestEmergepaySDK runs the vendor's own client (emergepay-sdk, pinned in
// package.json and installed by `make test`) against the sandbox, with
// only its environmentUrl pointed here: every operation it offers for the
// direct API succeeds and carries the published fields.
func TestEmergepaySDK(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not installed; run `make test`, which installs it: %v", err)
	}
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Dir(file)
	if _, err := os.Stat(filepath.Join(dir, "..", "..", "..", "node_modules", "emergepay-sdk", "package.json")); err != nil {
		t.Fatalf("emergepay-sdk is not installed (%v); run `make test`, which installs it from package.json", err)
	}
	e := newEnv(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "testdata", "emergepay_sdk.js"))
	cmd.Env = append(os.Environ(), "SANDBOX_URL="+e.ts.URL+"/virtualterminal/v1", "OID="+e.acct.OID, "TOKEN="+e.acct.Token,
		"NO_PROXY=*", "HTTP_PROXY=", "HTTPS_PROXY=", "http_proxy=", "https_proxy=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("emergepay-sdk script: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	// The script's own lines say what the SDK saw; the sandbox's ledger
	// says what happened.
	out := stdout.String()
	seen := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var step struct {
			Step, TransactionType, UniqueTransID string
		}
		if json.Unmarshal(sc.Bytes(), &step) == nil && step.Step != "" {
			seen[step.Step] = step.UniqueTransID
		}
	}
	if len(seen) != 15 {
		t.Fatalf("the script reported %d steps, want 15:\n%s", len(seen), out)
	}
	txns, err := e.area.Transactions(e.acct.OID, 0)
	if err != nil {
		t.Fatal(err)
	}
	byType := map[string]int{}
	for _, x := range txns {
		byType[x.Type]++
	}
	want := map[string]int{"CreditSale": 2, "CreditAuth": 2, "Void": 1, "CreditReturn": 2, "CreditSaveCard": 1,
		"AchSale": 1, "AchReturn": 1, "AchSaveAccount": 1, "Adjustment": 2, "CreditForce": 1}
	for typ, n := range want {
		if byType[typ] != n {
			t.Errorf("%d %s transactions upstream, want %d (all: %v)", byType[typ], typ, n, byType)
		}
	}
	if !strings.Contains(out, "15 passed, 0 failed") {
		t.Errorf("script summary missing:\n%s", out)
	}
}
