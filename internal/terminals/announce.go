package terminals

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Announcer is told of each launch that finished (approved, declined, cancelled, timed
// out, card removed, not sent; a resend's launch finishes on its own), inside the
// transaction that records it (the partner webhooks; internal/app wires it).
type Announcer interface {
	LaunchFinished(ctx context.Context, tx pgx.Tx, l *Launch) error
}

// Finished reports whether a launch reached its final state.
func (s State) Finished() bool { return !s.Open() && s != StateResent }

// announce tells the announcer, if any, of a launch that finished.
func (s *Service) announce(ctx context.Context, tx pgx.Tx, l *Launch) error {
	if s.announcer == nil || !l.State.Finished() {
		return nil
	}
	return s.announcer.LaunchFinished(ctx, tx, l)
}
