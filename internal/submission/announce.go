package submission

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// Announcer is told of the submission's news partners hear about, inside the
// transaction of the change, so the news commits with it or not at all (the partner
// webhooks; internal/app wires it). A nil Announcer announces nothing.
type Announcer interface {
	// ApplicationSubmitted: an application was submitted (moved to submitting).
	ApplicationSubmitted(ctx context.Context, tx pgx.Tx, applicationID uuid.UUID) error
	// ApplicationLinked: the merchant's link was recorded and its e-mail queued.
	ApplicationLinked(ctx context.Context, tx pgx.Tx, applicationID uuid.UUID) error
}
