// Package audit owns the audit trail: the audit_events table, the one list of actions
// recorded in it, the one way to write an entry (Record, inside the transaction of the
// change it records) and the history people read (History, and its wording).
//
// An entry is about a subject: an application today, and merchants, users and
// transactions as their rooms arrive. A new action is a constant here, its row in
// the table of sentences (sentences.go), and a Record call in the use case that does it.
package audit

import (
	"github.com/google/uuid"

	"github.com/payportal/portal/internal/models"
)

// The actions of the audit trail (audit_events.action).
const (
	// Applications, recorded by the workspace.
	ActionCreated    = "created"
	ActionChanged    = "changed"
	ActionRevealed   = "revealed"
	ActionReassigned = "reassigned"
	ActionDeleted    = "deleted"
	ActionRestored   = "restored"

	// Documents, recorded by the documents room.
	ActionDocumentAdded    = "document_added"
	ActionDocumentReplaced = "document_replaced"
	ActionDocumentDeleted  = "document_deleted"

	// Submission and hand-off.
	ActionSubmitted = "submitted"
	// ActionLinked: the link exists, the application is locked and the merchant e-mailed.
	ActionLinked = "linked"
	// ActionSubmissionFailed: the push stopped and the application went back to the rep.
	ActionSubmissionFailed = "submission_failed"
	// ActionHandoffResent: a rep sent the hand-off e-mail again.
	ActionHandoffResent = "handoff_resent"
	// ActionOpened: the merchant opened the e-mailed link.
	ActionOpened = "opened"
	// ActionUpstreamStatus: the processor announced a status in a webhook.
	ActionUpstreamStatus = "upstream_status"

	// Reminders, recorded by the reminders room.
	// ActionReminderSent: a reminder went out (Details.Reminder names its kind).
	ActionReminderSent = "reminder_sent"
	// ActionRemindersPaused and ActionRemindersResumed: a rep stopped or restarted them.
	ActionRemindersPaused  = "reminders_paused"
	ActionRemindersResumed = "reminders_resumed"

	// ActionImported: the application was updated from an imported file (one created
	// from a file is ActionCreated, with the batch and row in its details).
	ActionImported = "imported"

	// Merchants, recorded by the merchants room on the merchant's trail.
	// ActionMerchantBoarded: the upstream boarded the application; the merchant exists.
	ActionMerchantBoarded = "merchant_boarded"
	// ActionCredentialsSet: a credential was entered or replaced (Area, Source).
	ActionCredentialsSet = "credentials_set"
	// ActionCredentialsTested: "test connection" was run (Area, OK).
	ActionCredentialsTested = "credentials_tested"
	// ActionCredentialsFetchFailed: the sandbox did not hand the credentials over.
	ActionCredentialsFetchFailed = "credentials_fetch_failed"
	// ActionLocationAdded, ActionLocationChanged, ActionLocationRemoved: terminal locations.
	ActionLocationAdded   = "location_added"
	ActionLocationChanged = "location_changed"
	ActionLocationRemoved = "location_removed"
	// ActionMemberInvited: a person of the merchant was invited or given access.
	ActionMemberInvited = "member_invited"
	// ActionPermissionsChanged: a member's permissions changed.
	ActionPermissionsChanged = "permissions_changed"
	// ActionMemberRemoved: a member lost access to the merchant.
	ActionMemberRemoved = "member_removed"
	// ActionMerchantSuspended, ActionMerchantResumed: payments and terminals stopped, or allowed again.
	ActionMerchantSuspended = "merchant_suspended"
	ActionMerchantResumed   = "merchant_resumed"
	// ActionMerchantAlert: the upstream declined or withdrew a boarded merchant (Status).
	ActionMerchantAlert = "merchant_alert"
	// ActionMerchantAlertResolved: an admin decided about the alert (Message).
	ActionMerchantAlertResolved = "merchant_alert_resolved"
	// ActionMessageLinkViewed: an admin saw the secret link of a held outbox message.
	ActionMessageLinkViewed = "message_link_viewed"
)

// Card terminals, recorded by the terminals room about the merchant and the
// transaction (TerminalDetails).
const (
	// ActionTerminalLaunched: a person launched a transaction on a terminal.
	ActionTerminalLaunched = "terminal_launched"
	// ActionTerminalConfirmed: a person said what a terminal showed for a
	// transaction whose outcome was unknown.
	ActionTerminalConfirmed = "terminal_confirmed"
	// ActionTerminalResent: a person sent an unknown transaction again.
	ActionTerminalResent = "terminal_resent"
	// ActionTerminalsRefreshed: a person downloaded a location's devices.
	ActionTerminalsRefreshed = "terminals_refreshed"
)

// TerminalDetails is what the terminal entries keep: never card data (the
// last four digits at most are not kept either).
type TerminalDetails struct {
	LaunchID string `json:"launch_id,omitempty"`
	Kind     string `json:"kind,omitempty"`
	Amount   string `json:"amount,omitempty"`
	// Tip is a tip launch's new tip (Amount is then the new total).
	Tip        string `json:"tip,omitempty"`
	LocationID string `json:"location_id,omitempty"`
	Device     string `json:"device,omitempty"`
	Reference  string `json:"reference,omitempty"`
	Reason     string `json:"reason,omitempty"`
	// Outcome is what the person said the terminal showed.
	Outcome string `json:"outcome,omitempty"`
}

// Details is the JSON the workspace's entries keep in audit_events.details. It never
// holds a value of personal data: a revealed field is named by its key, which holds an
// owner id at most.
type Details struct {
	Section  string `json:"section,omitempty"`
	Key      string `json:"key,omitempty"`
	FromID   string `json:"from_id,omitempty"`
	FromName string `json:"from_name,omitempty"`
	ToID     string `json:"to_id,omitempty"`
	ToName   string `json:"to_name,omitempty"`
	// Message is why a submission stopped; Status an upstream state.
	Message string `json:"message,omitempty"`
	Status  string `json:"status,omitempty"`
	// Reminder is the kind of a reminder sent, Number its place in the series;
	// MessageID the outbox message that carried it.
	Reminder  string `json:"reminder,omitempty"`
	Number    int    `json:"number,omitempty"`
	MessageID string `json:"message_id,omitempty"`
	// Batch is the import a change came from, Row the row of its file.
	Batch string `json:"batch,omitempty"`
	Row   int    `json:"row,omitempty"`

	// Merchants: the member concerned (id and display name), their
	// permissions in words, the credential's area ("payments", "terminals"),
	// where it came from ("admin", "sandbox"), a location, a test's outcome.
	MemberID    string   `json:"member_id,omitempty"`
	MemberName  string   `json:"member_name,omitempty"`
	Permissions []string `json:"permissions,omitempty"`
	Area        string   `json:"area,omitempty"`
	Source      string   `json:"source,omitempty"`
	Location    string   `json:"location,omitempty"`
	OK          *bool    `json:"ok,omitempty"`
}

// ActorOf is the actor of an entry made by u, or nil for none.
func ActorOf(u *models.User) *uuid.UUID {
	if u == nil {
		return nil
	}
	id := u.ID
	return &id
}

// Changes to an account, recorded by auth on the user's trail (Subject: User(id)) with
// the admin, or the person themself, as the actor, and AccountDetails. Refused attempts
// worth auditing are recorded with Outcome Failed (see docs/security.md).
const (
	// ActionUserCreated: an admin (or the command line) created the account with a
	// generated password.
	ActionUserCreated = "user_created"
	// ActionUserInvited: an account was created and its one-time link e-mailed (from
	// Admin → Users, or a merchant's page).
	ActionUserInvited = "user_invited"
	// ActionInvitationResent: a fresh one-time link was issued and e-mailed.
	ActionInvitationResent = "invitation_resent"
	// ActionInvitationAccepted: the person chose their password through the link.
	ActionInvitationAccepted = "invitation_accepted"
	// ActionRoleChanged: an admin changed the role (FromRole, ToRole).
	ActionRoleChanged = "role_changed"
	// ActionUserDeactivated, ActionUserReactivated: an admin ended or restored access.
	ActionUserDeactivated = "user_deactivated"
	ActionUserReactivated = "user_reactivated"
	// ActionPasswordChanged: the person changed their password (Failed: the current
	// password they typed was wrong).
	ActionPasswordChanged = "password_changed"
	// ActionPasswordReset: an admin gave the account a generated password.
	ActionPasswordReset = "password_reset"
	// ActionMFAEnrolled: the person set up two-step sign-in (Failed: a wrong code).
	ActionMFAEnrolled = "mfa_enrolled"
	// ActionMFATurnedOff: the person turned two-step sign-in off (Failed: a wrong code).
	ActionMFATurnedOff = "mfa_turned_off"
	// ActionMFAReset: an admin removed the account's second factor.
	ActionMFAReset = "mfa_reset"
	// ActionRecoveryCodesRenewed: the person replaced their recovery codes (Failed: a
	// wrong code).
	ActionRecoveryCodesRenewed = "recovery_codes_renewed"
)
