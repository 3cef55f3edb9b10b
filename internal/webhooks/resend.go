package webhooks

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/models"
)

// Deliveries returns one page of an endpoint's delivery log (status "" for all).
func (s *Service) Deliveries(ctx context.Context, endpointID uuid.UUID, status string, page int) (*DeliveryPage, error) {
	switch status {
	case "", StatusPending, StatusDelivered, StatusFailed:
	default:
		return nil, apperr.Invalid("status", "Choose pending, delivered or failed.")
	}
	return s.store.Deliveries(ctx, endpointID, status, page, 50)
}

// Delivery returns one delivery of an endpoint, the exact body it sends and its attempts.
func (s *Service) Delivery(ctx context.Context, endpointID, id uuid.UUID) (*Delivery, string, []Attempt, error) {
	return s.store.Delivery(ctx, endpointID, id)
}

// Resend sends a delivered or failed delivery again, now, with the same event id (the
// receiver dedupes by it) and a fresh signature; its attempts go on in the same log.
func (s *Service) Resend(ctx context.Context, admin *models.User, endpointID, id uuid.UUID) error {
	if !admin.IsAdmin() {
		return errAdminsOnly
	}
	return s.store.InTx(ctx, func(tx pgx.Tx) error {
		e, err := s.store.Get(ctx, tx, endpointID, false)
		if err != nil {
			return err
		}
		if e.Disabled() {
			return apperr.New(apperr.KindConflict, "Enable the endpoint before sending deliveries again.")
		}
		again, err := s.store.requeue(ctx, tx, endpointID, id)
		if err != nil {
			return err
		}
		if !again {
			return apperr.New(apperr.KindConflict, "This delivery is still being attempted; wait for its next attempt.")
		}
		_, err = s.d.Queue.InsertTx(ctx, tx, DeliverArgs{DeliveryID: id}, deliverOpts())
		return err
	})
}
