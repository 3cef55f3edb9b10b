package merchants

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/states"
)

// FollowStatus is the merchants room's part of the status webhooks (it is a
// handoff.StatusFollower, hooked in by the wiring), run in the transaction that records each new
// event, once per event:
//
//   - boarded, installed or active: the application becomes a merchant, once
//     (a repeat or a later state finds it there); in sandbox mode the
//     hand-over of its credentials is queued.
//   - declined or withdrawn after the merchant was boarded: recorded and
//     raised to the owning rep and the admins (a banner on the merchant, an
//     e-mail), never applied: payments go on until an admin decides.
//
// Out-of-order events are handled by the upstream's own times: a declined
// that happened after boarding raises the alert whichever arrives first.
func (s *Service) FollowStatus(ctx context.Context, tx pgx.Tx, applicationID uuid.UUID, status string, created time.Time) error {
	ev := followed{ApplicationID: applicationID, Status: status, Created: created}
	switch {
	case states.Boarded(ev.Status):
		return s.boarded(ctx, tx, ev)
	case ev.Status == "declined" || ev.Status == "withdrawn":
		m, err := s.d.Store.byApplication(ctx, tx, ev.ApplicationID)
		if isNotFound(err) {
			return nil // not boarded: the application shows the decision itself
		}
		if err != nil {
			return err
		}
		if !ev.Created.After(m.BoardedAt) {
			return nil // it came before the boarding: history, not news
		}
		return s.raiseAlert(ctx, tx, m, ev.Status, ev.Created)
	}
	return nil
}

// followed is one status event of an application.
type followed struct {
	ApplicationID uuid.UUID
	Status        string
	Created       time.Time
}

// boarded creates the merchant of a boarded application, once.
func (s *Service) boarded(ctx context.Context, tx pgx.Tx, ev followed) error {
	now := s.now()
	id, created, err := s.d.Store.create(ctx, tx, ev.ApplicationID, ev.Created, now)
	if err != nil {
		return err
	}
	if created {
		err := audit.Record(ctx, tx, audit.Event{Subject: audit.Merchant(id), Action: audit.ActionMerchantBoarded,
			Details: audit.Details{Status: ev.Status}, At: now})
		if err != nil {
			return err
		}
		if err := s.queueHandOver(ctx, tx, id); err != nil {
			return err
		}
	}
	// A declined or withdrawn that happened after the boarding may have
	// arrived first.
	m, err := s.d.Store.lock(ctx, tx, id)
	if err != nil {
		return err
	}
	if created {
		if err := s.announce(ctx, tx, ChangeBoarded, m); err != nil {
			return err
		}
	}
	status, at, found, err := s.d.Store.laterDecision(ctx, tx, ev.ApplicationID, m.BoardedAt)
	if err != nil || !found {
		return err
	}
	return s.raiseAlert(ctx, tx, m, status, at)
}

// raiseAlert records the upstream's decline or withdrawal of a boarded
// merchant and tells the owning rep and every admin. An alert already raised
// for that event, or for a later one, is not raised again.
func (s *Service) raiseAlert(ctx context.Context, tx pgx.Tx, m *Merchant, status string, at time.Time) error {
	if m.AlertAt != nil && !at.After(*m.AlertAt) {
		return nil
	}
	now := s.now()
	if err := s.d.Store.setAlert(ctx, tx, m.ID, status, at, now); err != nil {
		return err
	}
	err := audit.Record(ctx, tx, audit.Event{Subject: audit.Merchant(m.ID), Action: audit.ActionMerchantAlert,
		Details: audit.Details{Status: status}, At: now})
	if err != nil {
		return err
	}
	s.d.Log.Warn("upstream reported a boarded merchant as "+status, "merchant_id", m.ID, "application_id", m.ApplicationID)
	return s.mailAlert(ctx, tx, m, status)
}

// mailAlert e-mails the alert, through the outbox, to the owning rep and
// every active admin.
func (s *Service) mailAlert(ctx context.Context, tx pgx.Tx, m *Merchant, status string) error {
	if s.d.Outbox == nil || s.d.PublicURL == nil {
		return nil
	}
	recipients, err := s.d.Store.alertRecipients(ctx, tx, m.ApplicationID)
	if err != nil {
		return err
	}
	label := states.Upstream(status).Label
	appID := m.ApplicationID
	for _, u := range recipients {
		content, err := mail.NoticeEmail(mail.NoticeData{
			ResellerName: s.d.ResellerName, Name: u.Name,
			Subject: fmt.Sprintf("%s: the processor now says %s", m.Name, label),
			Paragraphs: []string{
				fmt.Sprintf("The processor reported %s as %s, after it had boarded the merchant.", m.Name, label),
				"Nothing was changed: the merchant's payments and terminals go on as they are until an admin decides, on the merchant's page, whether to suspend them.",
			},
			Link: s.d.PublicURL.JoinPath(m.Path()).String(), LinkText: "Open the merchant",
		})
		if err != nil {
			return err
		}
		if _, err := s.d.Outbox.Enqueue(ctx, tx, mail.Message{Kind: mail.KindMerchantAlert, ApplicationID: &appID,
			To: u.Email, ToName: u.Name, Content: content}); err != nil {
			return err
		}
	}
	return nil
}
