package payments

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/audit"
)

// Outcomes tells a merchant's history what became of the transactions its
// entries concern (audit.Outcomes): an entry is recorded when the request
// starts, its answer lands on the ledger line later.
func (l *Ledger) Outcomes(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]audit.Result, error) {
	rows, err := l.pool.Query(ctx, `SELECT id, kind, status, result_message, details
		FROM ledger_transactions WHERE id = ANY($1)`, ids)
	if err != nil {
		return nil, fmt.Errorf("read outcomes: %w", err)
	}
	type line struct {
		ID            uuid.UUID
		Kind          Kind
		Status        Status
		ResultMessage string
		Details       []byte
	}
	lines, err := pgx.CollectRows(rows, pgx.RowToStructByPos[line])
	if err != nil {
		return nil, fmt.Errorf("read outcomes: %w", err)
	}
	out := make(map[uuid.UUID]audit.Result, len(lines))
	for _, t := range lines {
		var details map[string]string
		_ = json.Unmarshal(t.Details, &details) // details the line lacks just say less
		out[t.ID] = outcomeOf(t.Kind, t.Status, t.ResultMessage, details)
	}
	return out, nil
}

// outcomeOf is what a ledger line's status says became of its request.
func outcomeOf(kind Kind, status Status, message string, details map[string]string) audit.Result {
	switch status {
	case StatusPending:
		return audit.Result{Outcome: audit.OutcomePending}
	case StatusChecking:
		return audit.Result{Outcome: audit.OutcomeUnknown}
	case StatusDeclined:
		reason := strings.TrimSpace(strings.TrimPrefix(message, "Declined:"))
		if strings.EqualFold(reason, "declined") {
			reason = ""
		}
		return audit.Result{Outcome: audit.OutcomeDeclined, Reason: reason}
	case StatusFailed:
		r := audit.Result{Outcome: audit.OutcomeRefused, Reason: message}
		if details["failure"] == failureFailed {
			r.Outcome = audit.OutcomeFailed
		}
		if details["reason"] != "" {
			r.Reason = details["reason"]
		}
		return r
	case StatusNotCharged:
		if details["duplicate"] == "true" {
			return audit.Result{Outcome: audit.OutcomeFailed, Reason: "the terminal answered with an earlier approval, so nothing was charged"}
		}
		return audit.Result{Outcome: audit.OutcomeFailed, Reason: "the processor has no record of it, so nothing was charged"}
	case StatusCancelled:
		return audit.Result{Outcome: audit.OutcomeCancelled, Reason: message}
	}
	r := audit.Result{Outcome: audit.OutcomeDone}
	switch {
	case kind == KindRefund && details["askedAs"] == string(KindVoid):
		r.Instead = "the processor refunded it instead, as the void came more than 25 minutes after the payment"
	case status == StatusPartial:
		r.Instead = "only partly approved"
	}
	return r
}
