package mail_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
)

// heldMessage enqueues a hand-off message on a portal without SMTP and waits
// until the worker has held it.
func heldMessage(t *testing.T, env *apptest.Env) *mail.Message {
	t.Helper()
	events, cancel, err := env.App.Jobs.Subscribe(river.EventKindJobCompleted)
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	content, err := mail.HandoffEmail(mail.HandoffData{
		ResellerName: "Test Payments", MerchantName: "Dana's <Donuts>", ContactName: "Dana",
		Link: "https://portal.test/l/abc",
	})
	if err != nil {
		t.Fatal(err)
	}
	m, err := env.App.Outbox.Enqueue(context.Background(), nil, mail.Message{Kind: mail.KindHandoff, To: merchantAddr, Content: content})
	if err != nil {
		t.Fatal(err)
	}
	timeout := time.After(20 * time.Second)
	for {
		select {
		case ev := <-events:
			var args mail.DeliverArgs
			if json.Unmarshal(ev.Job.EncodedArgs, &args) == nil && args.MessageID == m.ID {
				return m
			}
		case <-timeout:
			t.Fatal("message was not processed")
		}
	}
}

func TestOutboxPagesShowHeldMessagesToAdmins(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	_, adminPW := env.CreateUser(t, "admin@example.com", models.RoleAdmin)
	m := heldMessage(t, env)
	admin := env.Client(t)
	admin.Login("admin@example.com", adminPW)

	list := admin.Get("/admin/outbox")
	if list.Status != http.StatusOK {
		t.Fatalf("list: %d\n%s", list.Status, list.Body)
	}
	for _, want := range []string{"Not delivered — no SMTP server configured", "No SMTP server is configured", merchantAddr, "/admin/outbox/" + m.ID.String()} {
		if !strings.Contains(list.Body, want) {
			t.Errorf("list lacks %q", want)
		}
	}
	if held := admin.Get("/admin/outbox?status=held"); !strings.Contains(held.Body, m.ID.String()) {
		t.Error("the held filter does not show the message")
	}
	if sent := admin.Get("/admin/outbox?status=sent"); strings.Contains(sent.Body, m.ID.String()) {
		t.Error("the sent filter shows a held message")
	}

	show := admin.Get("/admin/outbox/" + m.ID.String())
	if show.Status != http.StatusOK {
		t.Fatalf("show: %d", show.Status)
	}
	// The text part as text; the HTML part only as escaped source, never markup.
	if !strings.Contains(show.Body, "https://portal.test/l/abc") || !strings.Contains(show.Body, "&lt;!doctype html&gt;") {
		t.Errorf("show page lacks the parts:\n%s", show.Body)
	}
	if strings.Contains(show.Body, "<table role=\"presentation\"") {
		t.Error("the e-mail's HTML was rendered into the page")
	}

	res := admin.PostForm("/admin/outbox/"+m.ID.String()+"/resend", url.Values{})
	if res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Location, "/admin/outbox/") || strings.HasSuffix(res.Location, m.ID.String()) {
		t.Fatalf("resend: %d %q", res.Status, res.Location)
	}
	if page := admin.Get(res.Location); !strings.Contains(page.Body, "no SMTP server is configured") || !strings.Contains(page.Body, "an earlier message") {
		t.Errorf("copy page:\n%s", page.Body)
	}
}

func TestOutboxIsForAdminsOnly(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	_, repPW := env.CreateUser(t, "rep@example.com", models.RoleSalesRep)
	m := heldMessage(t, env)
	rep := env.Client(t)
	rep.Login("rep@example.com", repPW)
	for _, path := range []string{"/admin/outbox", "/admin/outbox/" + m.ID.String()} {
		if res := rep.Get(path); res.Status != http.StatusForbidden || strings.Contains(res.Body, merchantAddr) {
			t.Errorf("GET %s as rep: %d", path, res.Status)
		}
	}
	if res := rep.PostForm("/admin/outbox/"+m.ID.String()+"/resend", url.Values{}); res.Status != http.StatusForbidden {
		t.Errorf("resend as rep: %d", res.Status)
	}
	if res := env.Client(t).Get("/admin/outbox"); res.Status != http.StatusSeeOther {
		t.Errorf("anonymous: %d, want a redirect to sign in", res.Status)
	}
}

func TestOutboxUnknownMessageIs404(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	_, adminPW := env.CreateUser(t, "admin@example.com", models.RoleAdmin)
	admin := env.Client(t)
	admin.Login("admin@example.com", adminPW)
	for _, path := range []string{"/admin/outbox/" + uuid.NewString(), "/admin/outbox/not-a-uuid"} {
		if res := admin.Get(path); res.Status != http.StatusNotFound {
			t.Errorf("GET %s: %d", path, res.Status)
		}
	}
	if res := admin.Get("/admin/outbox?status=bogus"); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("unknown status filter: %d", res.Status)
	}
}
