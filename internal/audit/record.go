package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/database"
)

// Kind is the kind of thing an audit entry is about.
type Kind string

// The subjects of audit entries. Applications are the only ones today; merchants,
// users and transactions get their trails as their rooms arrive.
const (
	SubjectApplication Kind = "application"
	SubjectMerchant    Kind = "merchant"
	SubjectUser        Kind = "user"
	SubjectTransaction Kind = "transaction"
	// SubjectMessage is an outbox message (an admin's view of its secret link).
	SubjectMessage Kind = "message"
)

// Subject names what an entry is about.
type Subject struct {
	Kind Kind
	ID   uuid.UUID
}

// Application is the subject of an application's trail.
func Application(id uuid.UUID) Subject { return Subject{Kind: SubjectApplication, ID: id} }

// Merchant is the subject of a merchant's trail: its credentials, members,
// permissions, suspension, alerts, and every payment and terminal action.
func Merchant(id uuid.UUID) Subject { return Subject{Kind: SubjectMerchant, ID: id} }

// User is the subject of a user's trail: every change to their account, by an admin
// or by themself.
func User(id uuid.UUID) Subject { return Subject{Kind: SubjectUser, ID: id} }

// Message is the subject of an outbox message's trail.
func Message(id uuid.UUID) Subject { return Subject{Kind: SubjectMessage, ID: id} }

// Event is one entry of an audit trail. Fields names changed fields and Details
// says more (encoded as JSON); neither ever holds a value of personal data.
type Event struct {
	Subject Subject
	// Actor is who acted; nil when the portal itself did (a job, a webhook).
	Actor *uuid.UUID
	// ActorKey is the partner API key that acted; when nil, Record takes the key the
	// context acts through (WithAPIKey), if any.
	ActorKey *uuid.UUID
	Action   string
	Fields   []string
	Details  any
	At       time.Time
	// Outcome says whether the act succeeded; empty is Succeeded. A refused attempt
	// worth auditing (a wrong current password) is recorded as Failed, on its own.
	Outcome Outcome
	// ClientAddress is the address of the request that made the entry; empty takes
	// the one ctx carries (WithClientAddress), none for the portal's own work.
	ClientAddress string
}

// Outcome says whether the act an entry records succeeded.
type Outcome string

// The outcomes of audit_events.outcome.
const (
	Succeeded Outcome = "success"
	Failed    Outcome = "failure"
)

// columns are audit_events' columns in the order of row.
const columns = `subject_kind, subject_id, actor_id, action, fields, details, created_at, outcome, client_address, actor_key_id`

// Record appends e to its subject's trail. Pass the transaction of the change it
// records, so that both happen or neither does.
func Record(ctx context.Context, q database.Querier, e Event) error {
	row, err := e.row(ctx)
	if err != nil {
		return err
	}
	_, err = q.Exec(ctx, `INSERT INTO audit_events (`+columns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, row...)
	if err != nil {
		return fmt.Errorf("record %s event: %w", e.Action, err)
	}
	return nil
}

// row is e as the columns of audit_events, in the order of columns.
func (e Event) row(ctx context.Context) ([]any, error) {
	details := "{}"
	if e.Details != nil {
		b, err := json.Marshal(e.Details)
		if err != nil {
			return nil, fmt.Errorf("encode %s event: %w", e.Action, err)
		}
		details = string(b)
	}
	fields := e.Fields
	if fields == nil {
		fields = []string{}
	}
	outcome := e.Outcome
	if outcome == "" {
		outcome = Succeeded
	}
	addr := e.ClientAddress
	if addr == "" {
		addr = ClientAddressOf(ctx)
	}
	return []any{string(e.Subject.Kind), e.Subject.ID, e.Actor, e.Action, fields, details, e.At, string(outcome), inet(addr), e.keyActor(ctx)}, nil
}

// inet is addr as audit_events.client_address takes it: nil when it is none or not an
// address (it is never stored as typed).
func inet(addr string) *netip.Addr {
	a, err := netip.ParseAddr(strings.TrimSpace(addr))
	if err != nil {
		return nil
	}
	a = a.Unmap().WithZone("")
	return &a
}

// RecordAll appends a few entries in one statement (one round trip), for a
// use case that records the same action on several trails (a payment's and
// its merchant's). Pass the transaction of the change.
func RecordAll(ctx context.Context, q database.Querier, events ...Event) error {
	if len(events) == 0 {
		return nil
	}
	values := make([]string, 0, len(events))
	args := make([]any, 0, 10*len(events))
	for _, e := range events {
		row, err := e.row(ctx)
		if err != nil {
			return err
		}
		n := len(args)
		values = append(values, fmt.Sprintf("($%d, $%d::uuid, $%d::uuid, $%d, $%d::text[], $%d::jsonb, $%d::timestamptz, $%d, $%d::inet, $%d::uuid)",
			n+1, n+2, n+3, n+4, n+5, n+6, n+7, n+8, n+9, n+10))
		args = append(args, row...)
	}
	_, err := q.Exec(ctx, `INSERT INTO audit_events (`+columns+`)
		VALUES `+strings.Join(values, ", "), args...)
	if err != nil {
		return fmt.Errorf("record %d %s events: %w", len(events), events[0].Action, err)
	}
	return nil
}

// RecordMany appends many entries in one statement (COPY), for a use case that changes
// many subjects at once (an import). Pass the transaction of the change.
func RecordMany(ctx context.Context, tx pgx.Tx, events []Event) error {
	if len(events) == 0 {
		return nil
	}
	rows := make([][]any, len(events))
	for i, e := range events {
		row, err := e.row(ctx)
		if err != nil {
			return err
		}
		rows[i] = row
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"audit_events"},
		strings.Split(strings.ReplaceAll(columns, " ", ""), ","), pgx.CopyFromRows(rows))
	if err != nil {
		return fmt.Errorf("record %d events: %w", len(events), err)
	}
	return nil
}
