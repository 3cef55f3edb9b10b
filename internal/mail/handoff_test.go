package mail_test

import (
	"strings"
	"testing"

	"github.com/payportal/portal/internal/mail"
)

func TestHandoffEmailEscapesHTMLAndKeepsTextPlain(t *testing.T) {
	c, err := mail.HandoffEmail(mail.HandoffData{
		ResellerName: "Acme <Payments>", MerchantName: `Bob & "Co"`, ContactName: "Bob",
		Link: secret(t, "https://portal.test/l/tok"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.Text, `Bob & "Co"`) || !strings.Contains(c.Text, "Acme <Payments>") {
		t.Errorf("text part should carry the names as typed:\n%s", c.Text)
	}
	if strings.Contains(c.HTML, "<Payments>") || !strings.Contains(c.HTML, "Acme &lt;Payments&gt;") || !strings.Contains(c.HTML, "Bob &amp; &#34;Co&#34;") {
		t.Errorf("HTML part does not escape:\n%s", c.HTML)
	}
	if strings.Contains(c.Subject, "\n") || c.Subject == "" {
		t.Errorf("subject %q", c.Subject)
	}
	// Without a rep, the e-mail still reads well.
	if strings.Contains(c.Text, " at Acme") || strings.Contains(c.Text, "Questions?") {
		t.Errorf("text mentions a missing rep:\n%s", c.Text)
	}
}

func TestHandoffEmailRefusesBadInput(t *testing.T) {
	for _, link := range []string{"javascript:alert(1)", "/l/tok", "", "https:///l/tok"} {
		if _, err := mail.NewSecretLink(link); err == nil {
			t.Errorf("secret link %q: accepted", link)
		}
	}
	link := secret(t, "https://x.test/l/t")
	tests := []struct {
		name string
		d    mail.HandoffData
	}{
		{"no link", mail.HandoffData{ResellerName: "A", MerchantName: "B"}},
		{"no merchant", mail.HandoffData{ResellerName: "A", Link: link}},
		{"no reseller", mail.HandoffData{MerchantName: "B", Link: link}},
	}
	for _, tt := range tests {
		if _, err := mail.HandoffEmail(tt.d); err == nil {
			t.Errorf("%s: accepted", tt.name)
		}
	}
}
