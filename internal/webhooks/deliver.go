package webhooks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/payportal/portal/internal/jobs"
	"github.com/payportal/portal/internal/models"
)

// DeliverArgs is the job of one delivery: one event to one endpoint, tried until the
// receiver answers 2xx or the schedule ends.
type DeliverArgs struct {
	DeliveryID uuid.UUID `json:"delivery_id"`
}

// Kind implements river.JobArgs.
func (DeliverArgs) Kind() string { return "webhook_deliver" }

// deliverOpts puts deliveries on their own queue, with one job attempt per delivery
// attempt of the schedule.
func deliverOpts() *river.InsertOpts {
	return &river.InsertOpts{Queue: jobs.QueueWebhooks, MaxAttempts: MaxAttempts}
}

// deliverWorker makes one attempt per run. A delivery no longer pending is left alone,
// so a job run twice does not send twice (a receiver may still get an event twice when
// a run dies after sending and before recording: it dedupes by webhook-id).
type deliverWorker struct {
	river.WorkerDefaults[DeliverArgs]
	svc    *Service
	sender *Sender
	// delay is the wait after a failed attempt (RetryDelay; tests shorten it).
	delay func(attempt int) time.Duration
	log   *slog.Logger
}

// Timeout bounds a run: the attempt's own timeout, and time to record it.
func (w *deliverWorker) Timeout(*river.Job[DeliverArgs]) time.Duration {
	return w.sender.timeout + 30*time.Second
}

// NextRetry schedules the next attempt after a failed one, by the delivery schedule.
func (w *deliverWorker) NextRetry(job *river.Job[DeliverArgs]) time.Time {
	return time.Now().Add(max(w.delay(job.Attempt), 10*time.Millisecond))
}

// Work makes one attempt.
func (w *deliverWorker) Work(ctx context.Context, job *river.Job[DeliverArgs]) error {
	store := w.svc.store
	o, err := store.outgoingOf(ctx, job.Args.DeliveryID)
	if errors.Is(err, models.ErrNotFound) {
		return river.JobCancel(fmt.Errorf("webhook delivery %s no longer exists", job.Args.DeliveryID))
	}
	if err != nil || o.Status != StatusPending {
		return err
	}
	if why := o.stopped(); why != "" {
		return store.stop(ctx, o.DeliveryID, why)
	}
	secrets, err := w.svc.openSecrets(o)
	if err != nil {
		return err
	}
	at := w.svc.now().UTC()
	ans := w.sender.Send(ctx, o.URL, o.EventID, at, o.Body, secrets)
	rec := attemptRecord{DeliveryID: o.DeliveryID, At: at, Answer: ans, Status: StatusDelivered}
	final := job.Attempt >= job.MaxAttempts
	if !ans.Accepted {
		rec.Status = StatusFailed
		if !final {
			next := at.Add(w.delay(job.Attempt))
			rec.Status, rec.Next = StatusPending, &next
		}
	}
	failingSince, recorded, err := store.recordAttempt(context.WithoutCancel(ctx), rec)
	w.svc.metrics.attempt(ans)
	if err != nil || !recorded || ans.Accepted {
		return err
	}
	w.log.Info("webhook delivery attempt failed", "delivery_id", o.DeliveryID, "endpoint_id", o.EndpointID,
		"attempt", job.Attempt, "code", ans.Code, "problem", ans.Problem)
	if failingSince != nil && at.Sub(*failingSince) >= RetryWindow {
		// Disabling stops this delivery too, with the endpoint's other pending ones.
		return w.svc.autoDisable(context.WithoutCancel(ctx), o.EndpointID, *failingSince)
	}
	if final {
		return nil
	}
	return fmt.Errorf("webhook delivery %s attempt %d: %s", o.DeliveryID, job.Attempt, ans.Problem)
}
