package app

import (
	"context"
	"net/url"
	"time"

	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/models"
)

// invitationMailer sends invitation links through the mail outbox, so that
// they are retried like every other message, and admins can read them at the
// outbox page while no SMTP server is configured.
type invitationMailer struct {
	outbox       *mail.Outbox
	publicURL    *url.URL
	resellerName string
}

// SendInvitation queues the invitation e-mail inside tx, the invitation's transaction.
func (m invitationMailer) SendInvitation(ctx context.Context, tx database.Tx, inviter, invitee *models.User, token string, expires time.Time) error {
	link, err := mail.SecretLinkOf(m.publicURL, "invite", token)
	if err != nil {
		return err
	}
	content, err := mail.InvitationEmail(mail.InvitationData{
		ResellerName: m.resellerName,
		Name:         invitee.Name,
		InviterName:  inviter.DisplayName(),
		Link:         link,
		// The invitee's zone if they had one (a new invitation to a known user),
		// else the inviter's, named: colleagues are mostly in the same place.
		Expires: mail.When(expires, invitee.TimeZone, inviter.TimeZone),
	})
	if err != nil {
		return err
	}
	by := inviter.ID
	_, err = m.outbox.Enqueue(ctx, tx, mail.Message{
		Kind: mail.KindInvitation, To: invitee.Email, ToName: invitee.Name, ReplyTo: inviter.Email,
		Content: content, CreatedBy: &by,
	})
	return err
}
