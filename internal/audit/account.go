package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/models"
)

// AccountDetails is what an account entry keeps: roles and reasons in words, never the
// person's name, e-mail address, password, code or link.
type AccountDetails struct {
	// Role is the role an account was created or invited with.
	Role string `json:"role,omitempty"`
	// FromRole and ToRole are a role change.
	FromRole string `json:"from_role,omitempty"`
	ToRole   string `json:"to_role,omitempty"`
	// Reason says why an attempt failed.
	Reason string `json:"reason,omitempty"`
}

// AccountEntry is one line of a user's account trail as an admin reads it.
type AccountEntry struct {
	At time.Time
	// Actor names who acted: the person themself, an admin; "" for the portal or the
	// command line.
	Actor string
	// Action is one of the account Action* constants.
	Action string
	// Text says what happened, without the actor.
	Text   string
	Failed bool
	// ClientAddress is where the request came from, "" when none was recorded.
	ClientAddress string
}

// accountRow is an account entry as stored.
type accountRow struct {
	Action        string
	Details       models.JSON
	Outcome       string
	ClientAddress string
	CreatedAt     time.Time
	ActorName     string
}

// AccountHistory returns the newest limit entries of a user's account trail, newest
// first.
func AccountHistory(ctx context.Context, q database.Querier, userID uuid.UUID, limit int) ([]AccountEntry, error) {
	rows, err := q.Query(ctx, `SELECT e.action, e.details, e.outcome, coalesce(host(e.client_address), ''), e.created_at,
			COALESCE(NULLIF(u.name, ''), u.email, '') AS actor_name
		FROM audit_events e LEFT JOIN users u ON u.id = e.actor_id
		WHERE e.subject_kind = $1 AND e.subject_id = $2
		ORDER BY e.created_at DESC, e.id DESC LIMIT $3`, string(SubjectUser), userID, limit)
	if err != nil {
		return nil, fmt.Errorf("load the account trail: %w", err)
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[accountRow])
	if err != nil {
		return nil, fmt.Errorf("load the account trail: %w", err)
	}
	out := make([]AccountEntry, len(list))
	for i, r := range list {
		var d AccountDetails
		_ = json.Unmarshal(r.Details, &d) // unknown or empty details just show less
		failed := r.Outcome == string(Failed)
		out[i] = AccountEntry{At: r.CreatedAt, Actor: r.ActorName, Action: r.Action, Text: describeAccountEvent(r.Action, d, failed),
			Failed: failed, ClientAddress: r.ClientAddress}
	}
	return out, nil
}

// failedAccountWords words the refused attempts, before their reason.
var failedAccountWords = map[string]string{
	ActionPasswordChanged:      "tried to change the password",
	ActionMFAEnrolled:          "tried to set up two-step sign-in",
	ActionMFATurnedOff:         "tried to turn two-step sign-in off",
	ActionRecoveryCodesRenewed: "tried to replace the recovery codes",
}

// accountSentences are the account actions' rows of the table of sentences.
func accountSentences() map[string]sentence {
	return map[string]sentence{
		ActionUserCreated: {did: func(e *entry) string {
			return "created the account as " + article(roleWords(e.acc.Role)) + ", with a generated password to change at the first sign-in"
		}},
		ActionUserInvited: {did: func(e *entry) string {
			return "invited them as " + article(roleWords(e.acc.Role)) + ", e-mailing a link that works once to choose a password"
		}},
		ActionRoleChanged: {did: func(e *entry) string {
			return "changed the role from " + roleWords(e.acc.FromRole) + " to " + roleWords(e.acc.ToRole)
		}},
		ActionInvitationResent:     {did: says("e-mailed a new invitation link")},
		ActionInvitationAccepted:   {did: says("accepted the invitation and chose a password")},
		ActionUserDeactivated:      {did: says("deactivated the account")},
		ActionUserReactivated:      {did: says("reactivated the account")},
		ActionPasswordChanged:      {did: says("changed the password")},
		ActionPasswordReset:        {did: says("reset the password (a generated one, to change at the next sign-in)")},
		ActionMFAEnrolled:          {did: says("set up two-step sign-in")},
		ActionMFATurnedOff:         {did: says("turned two-step sign-in off")},
		ActionMFAReset:             {did: says("reset two-step sign-in (to set up again at the next sign-in)")},
		ActionRecoveryCodesRenewed: {did: says("replaced the recovery codes")},
	}
}

// roleWords names a role as the pages do ("sales rep"), never by its code.
func roleWords(role string) string {
	if role == "" {
		return "user"
	}
	return strings.ToLower(models.Role(role).Label())
}

// describeAccountEvent words an account entry, without the actor: a refused attempt
// by failedAccountWords and its reason, anything else by its row of the table.
func describeAccountEvent(action string, d AccountDetails, failed bool) string {
	if failed {
		what, ok := failedAccountWords[action]
		if !ok {
			what = "tried to " + strings.ReplaceAll(action, "_", " ")
		}
		if d.Reason != "" {
			what += ": " + d.Reason
		}
		return what
	}
	e := &entry{acc: d}
	e.Action = action
	return e.text()
}
