package handoff

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/models"
)

// SendReminder queues, inside tx, a reminder e-mailing the merchant their link again,
// by the resend's path: the same recipient and sender as a resend, and like it a fresh
// tracked link of its own (the earlier ones keep working until they expire), its secret
// link sealed by the outbox. opened says the merchant has started at the processor but
// not accepted, which the e-mail words differently. The reminders room decides when;
// the audit entry is its own.
//
// Everything happens in tx: the tracked link's token, the message and its delivery job
// are written there, and every read (the owner, the earlier hand-off e-mail) goes
// through it. So the reminder, its token and the caller's record of it commit together
// or not at all (a crash never loses the record of a sent reminder, nor sends one the
// record does not hold), and the caller needs no second connection while tx holds one.
func (s *Resender) SendReminder(ctx context.Context, tx pgx.Tx, a *models.Application, opened bool) (*mail.Message, error) {
	if tx == nil {
		return nil, fmt.Errorf("reminder of application %s: no transaction", a.ID)
	}
	token, err := s.trackedToken(a)
	if err != nil {
		return nil, err
	}
	msg, data, err := s.mailer.envelope(ctx, tx, a, token)
	if err != nil {
		return nil, err
	}
	if msg.Content, err = mail.ReminderEmail(mail.ReminderData{HandoffData: data, Opened: opened}); err != nil {
		return nil, fmt.Errorf("reminder e-mail of application %s: %w", a.ID, err)
	}
	msg.Kind = mail.KindHandoffReminder
	if msg.ResentFrom, err = s.latestHandoff(ctx, tx, a); err != nil {
		return nil, err
	}
	if err := s.d.Apps.AddOpenToken(ctx, tx, a.ID, token, s.d.Now().UTC()); err != nil {
		return nil, err
	}
	return s.d.Outbox.Enqueue(ctx, tx, msg)
}
