package handoff

import (
	"context"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/states"
)

// ResendDeps are the collaborators of sending the hand-off e-mail again.
type ResendDeps struct {
	Apps   *applications.Store
	Mailer *Mailer
	Outbox *mail.Outbox
	Now    func() time.Time
	Log    *slog.Logger
}

// Resender e-mails the merchant their link again.
type Resender struct {
	d      ResendDeps
	mailer *Mailer
}

// NewResender returns the resend use case.
func NewResender(d ResendDeps) *Resender { return &Resender{d: d, mailer: d.Mailer} }

// errNotLinked refuses to resend an e-mail before the link exists.
var errNotLinked = apperr.New(apperr.KindConflict, "There is no link to send yet: the application has not been handed off to the merchant.")

// errDecided refuses to resend the link once the processor has decided.
var errDecided = apperr.New(apperr.KindConflict, "The processor has decided on this application: the merchant's link is not sent again.")

// ResendHandoff e-mails the merchant their link again: a new message in the
// outbox (the earlier ones keep their own record), written from the current
// owner of the application, and an audit entry.
func (s *Resender) ResendHandoff(ctx context.Context, u *models.User, id uuid.UUID) (*mail.Message, error) {
	a, err := s.d.Apps.Visible(ctx, nil, u, id)
	if err != nil {
		return nil, err
	}
	if !a.Locked() {
		return nil, errNotLinked
	}
	if a.UpstreamStatus != nil && states.Decided(*a.UpstreamStatus) {
		return nil, errDecided
	}
	// Each e-mail carries a tracked link of its own; the earlier ones keep working until
	// they expire.
	token, err := NewOpenToken()
	if err != nil {
		return nil, err
	}
	msg, err := s.mailer.Message(ctx, a, token)
	if err != nil {
		return nil, err
	}
	previous, err := s.d.Outbox.ForApplication(ctx, a.ID)
	if err != nil {
		return nil, err
	}
	msg.ResentFrom = LatestHandoff(previous)
	msg.CreatedBy = &u.ID
	var sent *mail.Message
	now := s.d.Now().UTC()
	err = s.d.Apps.InTx(ctx, func(tx pgx.Tx) error {
		if err := s.d.Apps.AddOpenToken(ctx, tx, a.ID, token, now); err != nil {
			return err
		}
		if sent, err = s.d.Outbox.Enqueue(ctx, tx, msg); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Event{Subject: audit.Application(a.ID), Actor: &u.ID, Action: audit.ActionHandoffResent, Details: map[string]any{"message_id": sent.ID.String()}, At: now})
	})
	if err != nil {
		return nil, err
	}
	s.d.Log.Info("hand-off e-mail sent again", "application_id", a.ID, "user_id", u.ID, "message_id", sent.ID)
	return sent, nil
}
