package merchants

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Change is a merchant's news partners hear about.
type Change string

// The changes announced.
const (
	ChangeBoarded   Change = "boarded"   // created from its boarded application
	ChangeSuspended Change = "suspended" // an admin stopped its payments and terminals
	ChangeResumed   Change = "resumed"   // an admin allowed them again
)

// Announcer is told of each change, with the merchant as it stands after it, inside the
// change's transaction (the partner webhooks; internal/app wires it). Nil: no one.
type Announcer interface {
	MerchantChanged(ctx context.Context, tx pgx.Tx, change Change, m *Merchant) error
}

// announce tells the announcer, if any, of a change.
func (s *Service) announce(ctx context.Context, tx pgx.Tx, change Change, m *Merchant) error {
	if s.d.Announcer == nil {
		return nil
	}
	return s.d.Announcer.MerchantChanged(ctx, tx, change, m)
}
