package app_test

import (
	"context"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/payportal/portal/internal/apikeys"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/testutil/apptest"
)

// webhookSecrets registers a webhook endpoint on the admins' page, rotates its secret,
// and returns a function that waits for the application's webhooks to be delivered and
// returns the secrets the scan must not find anywhere: both signing secrets and the
// bytes they stand for.
func webhookSecrets(t *testing.T, env *apptest.Env, admin *apptest.Client, adminUser *models.User) func() map[string]string {
	t.Helper()
	var received atomic.Int32
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		received.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rcv.Close)
	key, _, err := env.App.APIKeys.Create(context.Background(), adminUser, apikeys.NewKey{Name: "Scan", Scope: apikeys.ScopeReseller, Access: apikeys.AccessRead})
	if err != nil {
		t.Fatal(err)
	}
	shown := regexp.MustCompile(`id="issued-secret">(whsec_[^<]+)<`)
	admin.Get("/admin/webhooks/new")
	made := admin.PostForm("/admin/webhooks", url.Values{"url": {rcv.URL + "/hooks"}, "key_id": {key.ID.String()},
		"events": {"application.submitted", "application.linked"}})
	first := shown.FindStringSubmatch(made.Body)
	list, _ := env.App.Webhooks.List(context.Background())
	if first == nil || len(list) != 1 {
		t.Fatalf("register a webhook endpoint: %d", made.Status)
	}
	rotated := admin.PostForm("/admin/webhooks/"+list[0].ID.String()+"/rotate", nil)
	second := shown.FindStringSubmatch(rotated.Body)
	if second == nil {
		t.Fatalf("rotate the webhook secret: %d", rotated.Status)
	}
	return func() map[string]string {
		testutil.Eventually(t, 60*time.Second, "the application's webhooks", func() (bool, string) { return received.Load() >= 2, "" })
		out := map[string]string{}
		for i, s := range []string{html.UnescapeString(first[1]), html.UnescapeString(second[1])} {
			name := []string{"the first webhook secret", "the rotated webhook secret"}[i]
			out[name], out[name+"'s key"] = s, strings.TrimPrefix(s, "whsec_")
		}
		return out
	}
}
