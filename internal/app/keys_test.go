package app_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/apikeys"
	"github.com/payportal/portal/internal/app"
	"github.com/payportal/portal/internal/cli"
	"github.com/payportal/portal/internal/config"
	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/keys"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/payments"
	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/testutil/apptest"
)

// Issue 24's rotation: a portal holding every kind of sealed value under k1 (drafts with
// TIN, SSN and account number, a submitted snapshot, the hand-off link, secret links in
// the outbox, two-step sign-in secrets, merchants' credentials, billing data, customers,
// a consent, an import's rows, documents, TIN indexes of two applications with one TIN)
// gets k2 as its active key. Removing k1 then is refused; a rotation cut short is resumed
// by `portal keys rotate`; k1 is removed and the portal restarted: every value reads back
// as it was, the duplicate TINs are found under k2, and nothing anywhere is left under k1.
func TestKeysRotateEverySealedValue(t *testing.T) {
	ctx := context.Background()
	k1, k2 := "k1:"+newKey(), "k2:"+newKey()
	storage := t.TempDir()
	env := sealedPortal(t, k1, storage)

	t.Run("the registry holds every column holding ciphertext", func(t *testing.T) {
		registry := map[string]keys.Column{}
		for _, c := range app.SealedColumns() {
			registry[c.Place()] = c
		}
		found, err := keys.FindSealed(ctx, env.DB.Pool, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range found {
			c, ok := registry[f.Place()]
			if !ok || (f.Form == keys.FormIndex) != (c.Form == keys.FormIndex) {
				t.Errorf("%s holds key-ring values (%d rows) but is not in the registry as such: declare it in its room's SealedColumns", f.Place(), f.Rows)
			}
		}
		tallies, err := env.App.Keys.Count(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, tl := range tallies {
			if tl.ByKey["k1"] == 0 {
				t.Errorf("the test seals nothing in %s: it would not notice that place being forgotten", tl.Place)
			}
		}
	})
	before := readBack(t, env.App.Keys)

	// The roll-out: k2 is added everywhere and made active; the portal that ran with k1
	// active is replaced (its workers stop; this process stands for the new replicas).
	stopWorkers(t, env)
	both := keyVars(env, storage, k1+","+k2, "k2")

	// Removing k1 now is refused, naming it and what holds it.
	_, err := app.Build(ctx, loadConfig(t, keyVars(env, storage, k2, "k2")), env.DB, slog.New(slog.DiscardHandler), app.Options{})
	var missing *keys.MissingKeyError
	if !errors.As(err, &missing) {
		t.Fatalf("the portal started without k1: %v", err)
	}
	for _, want := range []string{`key "k1"`, "applications.draft (", "documents (2)", "users.mfa_secret (", "import_rows.cells ("} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal does not name %s: %v", want, err)
		}
	}

	// A rotation cut short as it reaches its second place: what it did stays readable.
	rotator, err := app.NewKeys(ctx, loadConfig(t, both), env.DB, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	cut, cancel := context.WithCancel(ctx)
	first := ""
	_, err = rotator.Rotate(cut, func(p keys.Progress) {
		if first == "" {
			first = p.Place
		} else if p.Place != first {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || first != "applications" {
		t.Fatalf("the rotation cut short after %s: %v", first, err)
	}
	if tallies, _ := rotator.Count(ctx); keys.Totals(tallies)["k1"] == 0 || keys.Totals(tallies)["k2"] == 0 {
		t.Fatalf("after the cut: %v", keys.Totals(tallies))
	}
	if got := readBack(t, rotator); !sameValues(t, got, before) {
		t.Fatal("after the cut some values read differently")
	}

	// `portal keys rotate` resumes it, printing its progress, and `status` shows the result.
	out := runKeys(t, both, "rotate")
	for _, want := range []string{"under key k2", "re-sealed", "mail_outbox:", "documents:", "Done in", "remove it from PORTAL_ENCRYPTION_KEYS"} {
		if !strings.Contains(out, want) {
			t.Errorf("keys rotate printed no %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Still under") {
		t.Errorf("keys rotate left values under k1:\n%s", out)
	}
	status := runKeys(t, both, "status")
	if !regexpMatch(`(?m)^k1\s+\S+ \S+ UTC\s+\S+ \S+ UTC\s+in the ring\s+0$`, status) || !regexpMatch(`(?m)^k2\s+.*active\s+[1-9][0-9,]*$`, status) {
		t.Errorf("keys status:\n%s", status)
	}

	// k1 removed, the portal restarted: it starts, and every value reads back.
	env2 := apptest.New(t, apptest.WithDatabaseURL(env.DBURL), apptest.WithEnv("PORTAL_ENCRYPTION_KEYS", k2),
		apptest.WithEnv("PORTAL_STORAGE_DIR", storage))
	if after := readBack(t, env2.App.Keys); !sameValues(t, after, before) {
		t.Fatal("after the rotation some values read differently")
	}
	if v, err := env2.App.Keys.Verify(ctx, nil); err != nil || v.Files != 2 || v.OlderIndexes != 0 {
		t.Errorf("verify after the restart: %+v, %v", v, err)
	}
	// The two applications with one TIN are found by its index under k2.
	indexes := env2.App.Sealer.TINIndexes("27-5308142")
	var dupes int
	if err := env2.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM applications WHERE tin_index = ANY($1)`, indexes).Scan(&dupes); err != nil || dupes != 2 {
		t.Errorf("%d applications found by the TIN's indexes %v, want 2 (%v)", dupes, indexes, err)
	}
	if !strings.HasPrefix(indexes[0], "k2:") {
		t.Errorf("the active index is %s", indexes[0])
	}
	// Nothing anywhere is left under k1: no column of any table, no stored file.
	if found, err := keys.FindSealed(ctx, env2.DB.Pool, "k1"); err != nil || len(found) > 0 {
		t.Errorf("values still under k1: %+v (%v)", found, err)
	}
	if tallies, err := env2.App.Keys.Count(ctx); err != nil || keys.Totals(tallies)["k1"] != 0 {
		t.Errorf("the registry counts %v under k1 (%v)", keys.Totals(tallies)["k1"], err)
	}
	if hits := testutil.FilesContaining(t, storage, []byte("portal-keyring k1 ")); len(hits) > 0 {
		t.Errorf("documents still under k1: %v", hits)
	}
}

// sealedPortal starts a portal with the key ring given and documents in storage, and
// fills it with every kind of sealed value: the hand-off of a complete application (the
// scan's), the showcase, and moreSealedValues.
func sealedPortal(t *testing.T, ring, storage string) *apptest.Env {
	t.Helper()
	env := apptest.New(t, apptest.WithSandbox(nil), apptest.WithEnv("PORTAL_ENCRYPTION_KEYS", ring),
		apptest.WithEnv("PORTAL_STORAGE_DIR", storage))
	fillSubmitAndHandOff(t, env)
	moreSealedValues(t, env, apptest.Seed(t, env))
	return env
}

// moreSealedValues adds what the showcase and the hand-off leave out: a customer's consent
// to a saved card, an import's rows, and a second application with the first one's TIN.
func moreSealedValues(t *testing.T, env *apptest.Env, show *apptest.Showcase) {
	t.Helper()
	ctx := context.Background()
	users := env.App.Auth.Users()
	member, err := users.ByEmail(ctx, show.Member.Email)
	if err != nil {
		t.Fatal(err)
	}
	token, err := env.App.Payments.MintToken(&payments.Merchant{ID: show.Merchant}, member, payments.PurposeSaveMethod(show.Customer))
	if err != nil {
		t.Fatal(err)
	}
	c := env.Client(t)
	c.Login(show.Member.Email, show.Member.Password)
	res := c.PostForm(fmt.Sprintf("/merchants/%s/customers/%s/methods", show.Merchant, show.Customer), url.Values{
		"form_token": {token}, "method": {"card"}, "card_number": {"4111111111111111"},
		"expiry": {fmt.Sprintf("08/%02d", env.Clock.Now().Year()%100+3)}, "security_code": {"123"},
		"billing_name": {"Pat Cardholder"}, "billing_zip": {"97204"}, "consent": {"true"}, "consent_how": {"in_person"}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("save a card: %d\n%.2000s", res.Status, res.Body)
	}
	rep, err := users.ByEmail(ctx, show.Rep.Email)
	if err != nil {
		t.Fatal(err)
	}
	csv := "Legal name,TIN,Owner SSN\nRiver Bikes LLC,45-1234567,123-45-6789\n"
	if _, err := env.App.Imports.Upload(ctx, rep, "", "leads.csv", strings.NewReader(csv)); err != nil {
		t.Fatalf("upload an import: %v", err)
	}
	d := drafts.Draft{Business: drafts.Business{LegalName: "Second Shop LLC", EntityType: "llc", TIN: "27-5308142"}}
	now := env.Clock.Now()
	a := &models.Application{ID: uuid.New(), OwnerID: rep.ID, Status: models.StatusDraft, Version: 1, LegalName: "Second Shop LLC",
		CreatedAt: now, UpdatedAt: now, TINIndex: env.App.Sealer.TINIndex(d)}
	if a.Draft, err = env.App.Sealer.SealJSON(a.ID, d); err != nil {
		t.Fatal(err)
	}
	if err := env.DB.Gorm.Create(a).Error; err != nil {
		t.Fatal(err)
	}
	idempotentAPIAnswer(t, env, show)
}

// idempotentAPIAnswer makes a partner API request with an Idempotency-Key, whose answer
// (it holds the application's data) is kept sealed for 24 hours.
func idempotentAPIAnswer(t *testing.T, env *apptest.Env, show *apptest.Showcase) {
	t.Helper()
	ctx := context.Background()
	admin, err := env.App.Auth.Users().ByEmail(ctx, show.Admin.Email)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := env.App.Auth.Users().ByEmail(ctx, show.Rep.Email)
	if err != nil {
		t.Fatal(err)
	}
	_, secret, err := env.App.APIKeys.Create(ctx, admin, apikeys.NewKey{Name: "Rotation", Scope: apikeys.ScopeRep, RepID: rep.ID.String(), Access: apikeys.AccessWrite})
	if err != nil {
		t.Fatal(err)
	}
	res := env.Client(t).Do(http.MethodPost, "/api/v1/applications", strings.NewReader(`{"business": {"legalName": "Idempotent Shop LLC"}}`),
		http.Header{"Authorization": {"Bearer " + secret}, "Content-Type": {"application/json"}, "Idempotency-Key": {"rotation-1"}})
	if res.Status != http.StatusCreated {
		t.Fatalf("an idempotent API request: %d %.500s", res.Status, res.Body)
	}
}

// readBack opens every sealed value of the registry: place/row → plaintext (blind
// indexes, which a rotation changes, are left out; Verify recomputes them).
func readBack(t *testing.T, svc *keys.Service) map[string]string {
	t.Helper()
	out := map[string]string{}
	if _, err := svc.Verify(context.Background(), func(place string, key keys.Key, plain string) {
		if place != "applications.tin_index" {
			out[place+"/"+strings.Join(key, ",")] = plain
		}
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// sameValues reports whether every value of want reads the same in got (got may hold more:
// a portal's start seals the hand-off links the showcase stored in the clear).
func sameValues(t *testing.T, got, want map[string]string) bool {
	t.Helper()
	same := true
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s reads differently (present: %v)", k, ok)
			same = false
		}
	}
	return same
}

// stopWorkers stops a portal's background work, as a replaced replica stops.
func stopWorkers(t *testing.T, env *apptest.Env) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := errors.Join(env.App.Jobs.Stop(ctx), env.App.Terminals.Stop(ctx)); err != nil {
		t.Fatal(err)
	}
}

// keyVars is the configuration of `portal keys` (and of a portal) on env's database and
// documents with the key ring given.
func keyVars(env *apptest.Env, storage, ring, active string) map[string]string {
	return map[string]string{
		"PORTAL_DATABASE_URL": env.DBURL, "PORTAL_STORAGE_DIR": storage,
		"PORTAL_ENCRYPTION_KEYS": ring, "PORTAL_ENCRYPTION_ACTIVE_KEY": active,
		"PORTAL_UPSTREAM_MODE": "remote", "PORTAL_UPSTREAM_BASE_URL": "http://127.0.0.1:9/v1", "PORTAL_UPSTREAM_TOKEN": "unused",
	}
}

func loadConfig(t *testing.T, vars map[string]string) *config.Config {
	t.Helper()
	cfg, err := config.Load(func(k string) (string, bool) { v, ok := vars[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// runKeys runs `portal keys <command>` and returns what it printed.
func runKeys(t *testing.T, vars map[string]string, command string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := cli.Run(context.Background(), []string{"keys", command}, func(k string) (string, bool) { v, ok := vars[k]; return v, ok },
		&stdout, &stderr); code != 0 {
		t.Fatalf("portal keys %s: exit %d\n%s%s", command, code, stdout.String(), stderr.String())
	}
	return stdout.String()
}

func newKey() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

func regexpMatch(pattern, s string) bool { return regexp.MustCompile(pattern).MatchString(s) }
