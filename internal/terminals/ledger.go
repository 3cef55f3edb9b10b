package terminals

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/models"
)

// Ledger is what the room needs of the payments ledger (issue 17): terminal
// transactions join the keyed payments in one list, one batch view, one
// export and one timeline per transaction. Both calls run in the room's
// transaction, so the launch and its ledger line change together.
type Ledger interface {
	// Opened adds a launch to the ledger as it is committed (sending) and
	// returns its ledger transaction's id. A return linked to a sale
	// (LinkedLedgerID) reserves its amount against what remains refundable
	// of that sale, and is refused with an apperr beyond it.
	Opened(ctx context.Context, tx pgx.Tx, l *Launch, by *models.User) (uuid.UUID, error)
	// Changed records the launch's new state, and event as a line of its
	// timeline, by a person (nil: the portal). A linked return that ends
	// without approval gives its reservation back.
	Changed(ctx context.Context, tx pgx.Tx, l *Launch, event string, by *uuid.UUID) error
}
