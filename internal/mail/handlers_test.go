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

// secretLink is the tracked link of the held message.
const secretLink = "https://portal.test/l/abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG"

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
		Link: secret(t, secretLink),
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
	// The held message's link, clickable and copyable; the text part as text; the HTML
	// part in a sandboxed frame, never markup of the page.
	for _, want := range []string{`id="outbox-link" type="text" readonly value="` + secretLink + `"`, `href="` + secretLink + `"`,
		`data-copy-target="outbox-link"`, `src="/admin/outbox/` + m.ID.String() + `/html" sandbox=`} {
		if !strings.Contains(show.Body, want) {
			t.Errorf("show page lacks %s:\n%s", want, show.Body)
		}
	}
	if strings.Contains(show.Body, "<table role=\"presentation\"") {
		t.Error("the e-mail's HTML was rendered into the page")
	}
	frame := admin.Get("/admin/outbox/" + m.ID.String() + "/html")
	if frame.Status != http.StatusOK || !strings.Contains(frame.Body, "<table role=\"presentation\"") || strings.Contains(frame.Body, secretLink) ||
		!strings.Contains(frame.Header.Get("Content-Security-Policy"), "sandbox") || !strings.Contains(frame.Header.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Errorf("HTML part: %d %v\n%s", frame.Status, frame.Header, frame.Body)
	}
	// The link is kept sealed, and the admin's view of it was recorded.
	var text, html, sealed string
	if err := env.DB.Pool.QueryRow(context.Background(), `SELECT text_body, html_body, secret_link FROM mail_outbox WHERE id = $1`, m.ID).Scan(&text, &html, &sealed); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text+html+sealed, secretLink) || !strings.HasPrefix(sealed, "v1.") {
		t.Errorf("the link is stored readable: %q", sealed)
	}
	var views int
	_ = env.DB.Pool.QueryRow(context.Background(), `SELECT count(*) FROM audit_events WHERE subject_kind = 'message' AND subject_id = $1 AND action = 'message_link_viewed'`, m.ID).Scan(&views)
	if views != 1 {
		t.Errorf("%d audited views of the link, want 1", views)
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

// Messages stored before links were sealed have their link moved out of the bodies and
// sealed (by the one-time task of the first start); delivery and the held view still give it.
func TestLegacyLinksAreSealed(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.WithoutWorkers())
	id := uuid.New()
	link := "http://127.0.0.1:8080/invite/abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG"
	_, err := env.DB.Pool.Exec(context.Background(), `INSERT INTO mail_outbox (id, kind, to_address, subject, text_body, html_body, status)
		VALUES ($1, 'invitation', 'new@example.com', 'Invited', $2, $3, 'held')`, id, "Choose your password: "+link+"\n", `<a href="`+link+`">`+link+`</a>`)
	if err != nil {
		t.Fatal(err)
	}
	for want := 1; want >= 0; want-- {
		if n, err := env.App.Outbox.SealLegacyLinks(context.Background()); err != nil || n != want {
			t.Fatalf("sealed %d, %v; want %d", n, err, want)
		}
	}
	var text, html, sealed string
	_ = env.DB.Pool.QueryRow(context.Background(), `SELECT text_body, html_body, secret_link FROM mail_outbox WHERE id = $1`, id).Scan(&text, &html, &sealed)
	if strings.Contains(text+html+sealed, "/invite/") || !strings.Contains(text, mail.LinkPlaceholder) {
		t.Fatalf("after the pass: %q %q %q", text, html, sealed)
	}
	m, err := env.App.Outbox.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	admin, _ := env.CreateUser(t, "admin@example.com", models.RoleAdmin)
	got, err := env.App.Outbox.RevealLink(context.Background(), admin.ID, m)
	if err != nil || got != link {
		t.Fatalf("revealed %q, %v; want %q", got, err, link)
	}
}
