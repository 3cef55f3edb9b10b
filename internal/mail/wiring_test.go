package mail_test

import (
	"context"
	"testing"
	"time"

	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/testutil/apptest"
	"github.com/payportal/portal/internal/testutil/smtpserver"
)

// The portal as configured through PORTAL_SMTP_* delivers over plain SMTP
// when PORTAL_SMTP_TLS=none, with credentials.
func TestPortalSendsThroughTheConfiguredSMTPServer(t *testing.T) {
	t.Parallel()
	srv := smtpserver.Start(t, smtpserver.WithAuth("portal", "pw-123456"))
	env := apptest.New(t,
		apptest.WithEnv("PORTAL_SMTP_HOST", srv.Host),
		apptest.WithEnv("PORTAL_SMTP_PORT", srv.PortString()),
		apptest.WithEnv("PORTAL_SMTP_USERNAME", "portal"),
		apptest.WithEnv("PORTAL_SMTP_PASSWORD", "pw-123456"),
		apptest.WithEnv("PORTAL_SMTP_TLS", "none"),
		apptest.WithEnv("PORTAL_SMTP_FROM", "Onboarding <onboarding@reseller.test>"),
	)
	_, err := env.App.Outbox.Enqueue(context.Background(), nil, mail.Message{
		Kind: mail.KindHandoff, To: "Dana <dana@merchant.test>", Content: mail.Content{Subject: "Your link", Text: "https://x.test/l/t"},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := srv.WaitFor(t, 20*time.Second)
	if got.Subject != "Your link" || got.From != "onboarding@reseller.test" || got.To[0] != "dana@merchant.test" {
		t.Fatalf("delivered: %+v", got)
	}
}
