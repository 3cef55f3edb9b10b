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
	if a.Locked() && a.UpstreamStatus != nil && states.Decided(*a.UpstreamStatus) {
		return nil, errDecided
	}
	token, err := s.trackedToken(a)
	if err != nil {
		return nil, err
	}
	msg, err := s.mailer.Message(ctx, a, token)
	if err != nil {
		return nil, err
	}
	if msg.ResentFrom, err = s.latestHandoff(ctx, nil, a); err != nil {
		return nil, err
	}
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

// trackedToken mints the open-tracking token of an e-mail that carries the merchant's
// link again: the resend and the reminders (remind.go) both take it here. Each e-mail
// carries a tracked link of its own (stored with applications.Store.AddOpenToken in the
// e-mail's transaction); the earlier ones keep working until they expire.
func (s *Resender) trackedToken(a *models.Application) (string, error) {
	if !a.Locked() {
		return "", errNotLinked
	}
	return NewOpenToken()
}

// latestHandoff is the newest hand-off e-mail of an application, which a fresh copy
// names as the message it resends; read inside tx when there is one.
func (s *Resender) latestHandoff(ctx context.Context, tx pgx.Tx, a *models.Application) (*uuid.UUID, error) {
	previous, err := s.d.Outbox.ForApplicationTx(ctx, tx, a.ID)
	if err != nil {
		return nil, err
	}
	return LatestHandoff(previous), nil
}
