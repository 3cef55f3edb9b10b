package mail_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	htmltemplate "html/template"
	"log/slog"
	"strings"
	"testing"
	texttemplate "text/template"

	"github.com/payportal/portal/internal/mail"
)

// secret wraps a test's link.
func secret(t testing.TB, link string) mail.SecretLink {
	t.Helper()
	l, err := mail.NewSecretLink(link)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// A SecretLink shows its address to nothing but the outbox: a template, fmt (every
// verb, alone or inside a struct), slog and JSON all get the placeholder.
func TestSecretLinkNeverRendersItsAddress(t *testing.T) {
	const raw = "https://portal.test/invite/abcdefghijklmnopqrstuvwxyz0123456789"
	l := secret(t, raw)
	type carrier struct {
		Link    mail.SecretLink
		private mail.SecretLink
	}
	c := carrier{Link: l, private: l}
	var out []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d"} {
		out = append(out, fmt.Sprintf(verb, l), fmt.Sprintf(verb, c), fmt.Sprintf(verb, &c))
	}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("sent", "link", l, "carrier", c)
	js, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var text, html bytes.Buffer
	if err := texttemplate.Must(texttemplate.New("t").Parse(`{{.Link}}`)).Execute(&text, c); err != nil {
		t.Fatal(err)
	}
	if err := htmltemplate.Must(htmltemplate.New("h").Parse(`<a href="{{.Link}}">{{.Link}}</a>`)).Execute(&html, c); err != nil {
		t.Fatal(err)
	}
	out = append(out, logged.String(), string(js), text.String(), html.String())
	for _, s := range out {
		if strings.Contains(s, "abcdefghijklmnopqrstuvwxyz") {
			t.Errorf("the address shows: %s", s)
		}
	}
	if text.String() != mail.LinkPlaceholder || !strings.Contains(html.String(), `href="`+mail.LinkPlaceholder+`"`) {
		t.Errorf("templates wrote %q and %q, not the placeholder", text.String(), html.String())
	}
	if (mail.SecretLink{}).String() != "" || !(mail.SecretLink{}).IsZero() || l.IsZero() {
		t.Error("the zero link is no link")
	}
}

// Every e-mail that carries a secret link hands it on in its content, with the
// placeholder in the bodies.
func TestBuildersCarryTheSecretLink(t *testing.T) {
	l := secret(t, "https://portal.test/l/abcdefghijklmnopqrstuvwxyz0123456789")
	handoff := mail.HandoffData{ResellerName: "Acme", MerchantName: "Bob's", Link: l}
	build := map[string]func() (mail.Content, error){
		"hand-off": func() (mail.Content, error) { return mail.HandoffEmail(handoff) },
		"reminder": func() (mail.Content, error) { return mail.ReminderEmail(mail.ReminderData{HandoffData: handoff}) },
		"invitation": func() (mail.Content, error) {
			return mail.InvitationEmail(mail.InvitationData{ResellerName: "Acme", Link: l})
		},
	}
	for name, f := range build {
		c, err := f()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if c.SecretLink != l || !strings.Contains(c.Text, mail.LinkPlaceholder) || !strings.Contains(c.HTML, mail.LinkPlaceholder) ||
			strings.Contains(c.Text+c.HTML, "/l/") {
			t.Errorf("%s: link %v, text %q", name, c.SecretLink, c.Text)
		}
	}
}
