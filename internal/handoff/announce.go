package handoff

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// StatusAnnouncer is told of each upstream state that now shows on an application (a
// stale or repeated event is not passed on), inside the transaction that records it,
// after the followers (a boarded application's merchant exists by then). It is how
// partners hear of the processor's news (the partner webhooks; internal/app wires it).
type StatusAnnouncer interface {
	StatusShown(ctx context.Context, tx pgx.Tx, applicationID uuid.UUID, status string) error
}

// AnnounceTo makes the recorder tell a of every state newly shown, and returns it.
func (r *UpstreamStatusRecorder) AnnounceTo(a StatusAnnouncer) *UpstreamStatusRecorder {
	r.announcer = a
	return r
}
