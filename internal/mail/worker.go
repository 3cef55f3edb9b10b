package mail

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/payportal/portal/internal/config"
	"github.com/payportal/portal/internal/models"
)

// DeliveryAttempts is how often one message is tried before it is marked
// failed. With the default backoff the last attempt comes some four hours after
// the first, enough to ride out an SMTP server's maintenance.
const DeliveryAttempts = 10

// deliveryTimeout bounds one attempt, above go-mail's own connection timeout.
const deliveryTimeout = 2 * time.Minute

// recordTimeout bounds recording an attempt's outcome.
const recordTimeout = 10 * time.Second

// DeliverArgs is the job that delivers one outbox message.
type DeliverArgs struct {
	MessageID uuid.UUID `json:"message_id"`
}

// Kind implements river.JobArgs.
func (DeliverArgs) Kind() string { return "mail_deliver" }

// deliveryWorker delivers outbox messages. A message that is no longer
// pending is left alone, so a job that runs twice does not send twice.
type deliveryWorker struct {
	river.WorkerDefaults[DeliverArgs]
	pool   *pgxpool.Pool
	sender Sender // nil: no SMTP server, messages are held
	smtp   config.SMTPConfig
	now    func() time.Time
	// retryDelay mirrors the queue's schedule, to tell admins when the next
	// attempt is due.
	retryDelay func(attempt int) time.Duration
	log        *slog.Logger
	// outbox opens a message's sealed link for delivery.
	outbox *Outbox
}

// Timeout implements river.Worker.
func (w *deliveryWorker) Timeout(*river.Job[DeliverArgs]) time.Duration { return deliveryTimeout }

// Work implements river.Worker: one delivery attempt.
func (w *deliveryWorker) Work(ctx context.Context, job *river.Job[DeliverArgs]) error {
	id := job.Args.MessageID
	m, err := getMessage(ctx, w.pool, id)
	if errors.Is(err, models.ErrNotFound) {
		return river.JobCancel(fmt.Errorf("outbox message %s does not exist", id))
	}
	if err != nil {
		return err
	}
	if m.Status != StatusPending {
		return nil
	}
	if w.sender == nil {
		w.log.Info("e-mail held in the outbox: no SMTP server configured", "message_id", id, "kind", m.Kind)
		return markHeld(ctx, w.pool, id)
	}
	// The link is opened for the delivery alone; the stored message keeps the placeholder.
	link, err := w.outbox.openLink(m)
	if err != nil {
		return err
	}
	if link != "" {
		m.Content = m.WithLink(link)
	}
	sendErr := w.sender.Send(ctx, m)
	// The outcome is recorded even when the job's context has just ended
	// (shutdown, timeout), so that the outbox tells the truth.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	if sendErr == nil {
		w.log.Info("e-mail sent", "message_id", id, "kind", m.Kind, "attempt", job.Attempt)
		return markSent(ctx, w.pool, id, job.Attempt, w.now().UTC())
	}
	// The reason goes to the outbox and, through the returned error, to River's
	// log and job row, so it is stripped of the address and credentials.
	reason := describe(sendErr, m, w.smtp)
	permanent := IsPermanent(sendErr)
	if permanent || job.Attempt >= job.MaxAttempts {
		w.log.Warn("e-mail delivery failed for good", "message_id", id, "kind", m.Kind, "attempts", job.Attempt, "permanent", permanent)
		if err := markFailed(ctx, w.pool, id, job.Attempt, reason); err != nil {
			return err
		}
		if permanent {
			return river.JobCancel(errors.New(reason))
		}
		return errors.New(reason)
	}
	w.log.Info("e-mail delivery failed, will retry", "message_id", id, "kind", m.Kind, "attempt", job.Attempt)
	next := w.now().UTC().Add(w.retryDelay(job.Attempt))
	if err := markRetrying(ctx, w.pool, id, job.Attempt, reason, next); err != nil {
		return err
	}
	return errors.New(reason)
}
