package webhooks

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/mail"
)

// autoDisable disables an endpoint whose attempts have failed since since, three days
// or more, and tells every active admin by e-mail, in one transaction; the endpoint's
// page shows why until an admin enables it. An endpoint already disabled is left alone.
func (s *Service) autoDisable(ctx context.Context, id uuid.UUID, since time.Time) error {
	var done bool
	err := s.store.InTx(ctx, func(tx pgx.Tx) error {
		e, err := s.store.Get(ctx, tx, id, true)
		if err != nil || e.Disabled() {
			return err
		}
		now := s.now().UTC()
		if err := s.store.setDisabled(ctx, tx, id, true, nil, now); err != nil {
			return err
		}
		if err := s.record(ctx, tx, nil, e, audit.ActionWebhookEndpointDisabled, now); err != nil {
			return err
		}
		done = true
		return s.tellAdmins(ctx, tx, e, since)
	})
	if err != nil {
		return err
	}
	if done {
		s.metrics.endpointDisabled()
		s.d.Log.Warn("webhook endpoint disabled: its deliveries failed for three days", "endpoint_id", id, "failing_since", since)
	}
	return nil
}

// tellAdmins e-mails every active admin, through the outbox, that e was disabled.
func (s *Service) tellAdmins(ctx context.Context, tx pgx.Tx, e *Endpoint, since time.Time) error {
	if s.d.Outbox == nil || s.d.PublicURL == nil {
		return nil
	}
	rows, err := tx.Query(ctx, `SELECT email, COALESCE(NULLIF(name, ''), email) FROM users WHERE role = 'admin' AND active ORDER BY email`)
	if err != nil {
		return fmt.Errorf("list admins: %w", err)
	}
	type admin struct{ Email, Name string }
	admins, err := pgx.CollectRows(rows, pgx.RowToStructByPos[admin])
	if err != nil {
		return fmt.Errorf("list admins: %w", err)
	}
	link := s.d.PublicURL.JoinPath("/admin/webhooks", e.ID.String()).String()
	for _, a := range admins {
		content, err := mail.NoticeEmail(mail.NoticeData{
			ResellerName: s.d.ResellerName, Name: a.Name,
			Subject: "A webhook endpoint was disabled: " + e.KeyName,
			Paragraphs: []string{
				fmt.Sprintf("Every delivery to %s (API key “%s”) has failed since %s UTC, so the portal stopped sending to it.",
					e.URL, e.KeyName, since.UTC().Format("2006-01-02 15:04")),
				"Ask the partner to fix their receiver, then enable the endpoint on its page and send the failed deliveries again from its log.",
			},
			Link: link, LinkText: "Open the endpoint",
		})
		if err != nil {
			return err
		}
		if _, err := s.d.Outbox.Enqueue(ctx, tx, mail.Message{Kind: mail.KindWebhookDisabled, To: a.Email, ToName: a.Name, Content: content}); err != nil {
			return err
		}
	}
	return nil
}
