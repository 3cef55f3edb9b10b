package payments

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Announcer is told of every answer the ledger records (payments', refunds' and
// operations' of every source, the terminals' too), inside the answer's transaction,
// with the status the transaction had before it (pending or checking): the partner
// webhooks hear of approvals, declines, voids, refunds and unknown outcomes resolved
// (internal/app wires it).
type Announcer interface {
	Answered(ctx context.Context, tx pgx.Tx, before Status, t *Transaction) error
}

// AnnounceTo makes the ledger tell a of every answer, and returns it. With an announcer
// an answer always runs in a transaction (answerAlone opens one).
func (l *Ledger) AnnounceTo(a Announcer) *Ledger {
	l.announcer = a
	return l
}
