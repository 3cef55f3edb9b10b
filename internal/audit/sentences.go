package audit

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/payportal/portal/internal/states"
)

// entry is an audit row as its sentence reads it: the row, its details in
// each of the shapes the rooms write (a row fills the one of its room), and,
// for an attempt, what became of it.
type entry struct {
	row
	d      Details
	p      PaymentDetails
	t      TerminalDetails
	doc    DocumentDetails
	acc    AccountDetails
	result Result
}

// newEntry decodes r's details. Unknown or empty details just show less.
func newEntry(r row) *entry {
	e := &entry{row: r}
	_ = json.Unmarshal(r.Details, &e.d)
	_ = json.Unmarshal(r.Details, &e.p)
	_ = json.Unmarshal(r.Details, &e.t)
	_ = json.Unmarshal(r.Details, &e.doc)
	_ = json.Unmarshal(r.Details, &e.acc)
	return e
}

// sentence words one kind of entry, after the actor's name.
type sentence struct {
	// did says what was done: "voided a sale of $5.00 on Visa ending 1111".
	did func(e *entry) string
	// try, for an attempt whose answer comes later, says what was tried in
	// the infinitive ("void a sale of $5.00 on Visa ending 1111"); the
	// outcome's words follow it (attemptWords). Nil for an entry that is
	// done when it is recorded.
	try func(e *entry) string
}

// sentences is the one table of what the history says, a row per action.
// Every Action* constant has its row (a test reads the constants from the
// package's source and fails on one without a row), so a new action is a
// constant and one line here.
var sentences = map[string]sentence{
	// Applications.
	ActionCreated:  {did: wordCreated},
	ActionChanged:  {did: func(e *entry) string { return describeChange(e.Fields) }},
	ActionRevealed: {did: wordRevealed},
	ActionReassigned: {did: func(e *entry) string {
		return "reassigned the application from " + orSomeone(e.d.FromName) + " to " + orSomeone(e.d.ToName)
	}},
	ActionDeleted:  {did: says("deleted the application")},
	ActionRestored: {did: says("restored the application")},
	ActionImported: {did: func(e *entry) string { return describeImport(e.Fields, e.d) }},

	// Documents.
	ActionDocumentAdded:    {did: func(e *entry) string { return "added " + e.doc.phrase() }},
	ActionDocumentReplaced: {did: wordDocumentReplaced},
	ActionDocumentDeleted:  {did: func(e *entry) string { return "deleted " + e.doc.phrase() }},

	// Submission and hand-off; the portal is the actor.
	ActionSubmitted:        {did: says("submitted the application")},
	ActionLinked:           {did: says("created the merchant's link at the processor and e-mailed it to the merchant")},
	ActionSubmissionFailed: {did: func(e *entry) string { return "stopped the submission" + because(e.d.Message) }},
	ActionHandoffResent:    {did: says("e-mailed the merchant's link again")},
	ActionOpened:           {did: says("recorded that the merchant opened the link")},
	ActionUpstreamStatus:   {did: wordUpstreamStatus},

	// Reminders.
	ActionReminderSent:     {did: func(e *entry) string { return describeReminder(e.d) }},
	ActionRemindersPaused:  {did: says("paused the reminders")},
	ActionRemindersResumed: {did: says("resumed the reminders")},

	// Outbox.
	ActionMessageLinkViewed: {did: says("viewed the link of a held e-mail")},

	// Merchants (merchant_history.go).
	ActionMerchantBoarded:   {did: says("recorded that the processor boarded the merchant")},
	ActionCredentialsSet:    {did: wordCredentialsSet},
	ActionCredentialsTested: {did: wordCredentialsTested},
	ActionCredentialsFetchFailed: {did: func(e *entry) string {
		return "could not fetch the credentials from the sandbox" + because(e.d.Message)
	}},
	ActionLocationAdded:   {did: func(e *entry) string { return "added " + location(e.d) }},
	ActionLocationChanged: {did: func(e *entry) string { return "changed " + location(e.d) }},
	ActionLocationRemoved: {did: func(e *entry) string { return "removed " + location(e.d) }},
	ActionMemberInvited: {did: func(e *entry) string {
		return "gave " + orSomeone(e.d.MemberName) + " access: " + permissionList(e.d.Permissions)
	}},
	ActionPermissionsChanged: {did: func(e *entry) string {
		return "changed the permissions of " + orSomeone(e.d.MemberName) + " to: " + permissionList(e.d.Permissions)
	}},
	ActionMemberRemoved:         {did: func(e *entry) string { return "removed " + orSomeone(e.d.MemberName) + " from the merchant" }},
	ActionMerchantSuspended:     {did: func(e *entry) string { return "suspended the merchant's payments and terminals" + saying(e.d.Message) }},
	ActionMerchantResumed:       {did: says("resumed the merchant's payments and terminals")},
	ActionMerchantAlert:         {did: wordMerchantAlert},
	ActionMerchantAlertResolved: {did: wordAlertResolved},

	// Payments (payments.go): the request is recorded before it is sent.
	ActionPaymentRequested: {did: paymentWords("took"), try: paymentWords("take")},
	ActionCaptureRequested: {did: captureWords("captured"), try: captureWords("capture")},
	ActionVoidRequested:    {did: voidWords("voided"), try: voidWords("void")},
	ActionRefundRequested:  {did: refundWords("refunded"), try: refundWords("refund")},
	ActionTipRequested:     {did: tipWords(true), try: tipWords(false)},
	ActionMethodSaved:      {did: methodWords("saved"), try: methodWords("save")},
	ActionMethodRemoved:    {did: func(e *entry) string { return "removed a saved payment method" + e.p.card(" (", ")") }},
	ActionReceiptSent:      {did: func(e *entry) string { return "e-mailed a receipt" + prefixed(" for ", e.p.Amount) }},
	ActionCustomerCreated:  {did: says("added a customer")},
	ActionCustomerChanged:  {did: says("changed a customer's details")},
	ActionLedgerExported:   {did: func(e *entry) string { return "exported the ledger" + e.p.note() }},

	// Card terminals (terminals.go): a launch is recorded before it is sent.
	ActionTerminalLaunched:   {did: launchWords(true), try: launchWords(false)},
	ActionTerminalResent:     {did: resendWords(true), try: resendWords(false)},
	ActionTerminalConfirmed:  {did: wordTerminalConfirmed},
	ActionTerminalsRefreshed: {did: wordTerminalsRefreshed},
}

// text is what the entry says, after its actor's name. An action without a
// row (a newer version's, read by an older one) is named in words, never by
// its code.
func (e *entry) text() string {
	s, ok := sentenceOf(e.Action)
	switch {
	case !ok:
		return "recorded " + article(strings.ReplaceAll(e.Action, "_", " ")) + " entry"
	case s.try == nil || e.result.Outcome == OutcomeDone:
		text := s.did(e)
		if e.result.Instead != "" {
			text += "; " + e.result.Instead
		}
		return text
	}
	return attemptWords(s.try(e), e.result)
}

// attempt reports whether the entry records an attempt whose answer comes later.
func (e *entry) attempt() bool {
	s, _ := sentenceOf(e.Action)
	return s.try != nil
}

// sentenceOf finds an action's row: the rows of account actions, API keys and webhook
// endpoints live beside their types (account.go, apikey.go, webhooks.go), every other
// in sentences.
func sentenceOf(action string) (sentence, bool) {
	if s, ok := sentences[action]; ok {
		return s, true
	}
	for _, rows := range []map[string]sentence{accountSentences(), apiKeySentences(), webhookSentences()} {
		if s, ok := rows[action]; ok {
			return s, true
		}
	}
	return sentence{}, false
}

func says(text string) func(*entry) string { return func(*entry) string { return text } }

// prefixed is prefix+s, or "" when s is empty.
func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

func wordCreated(e *entry) string {
	if e.d.Batch != "" {
		return "created the application from an imported file (row " + strconv.Itoa(e.d.Row) + ")"
	}
	return "created the application"
}

func wordRevealed(e *entry) string {
	if len(e.Fields) == 0 {
		return "revealed a field of personal data"
	}
	return "revealed " + strings.Join(fieldLabels(e.Fields), ", ")
}

func wordUpstreamStatus(e *entry) string {
	if e.d.Status == "" {
		return "received a status from the processor"
	}
	return "received the processor's status: " + states.Upstream(e.d.Status).Label
}

// DocumentDetails is what the documents room's entries keep: the document,
// its type (code and title) and its file's name.
type DocumentDetails struct {
	DocumentID string `json:"document_id,omitempty"`
	DocType    string `json:"doc_type,omitempty"`
	// DocTitle is the type as people read it ("Voided check").
	DocTitle    string `json:"doc_title,omitempty"`
	DisplayName string `json:"display_name,omitempty"`
	SizeBytes   int64  `json:"size_bytes,omitempty"`
	// Replaced*: the document a replacement took the place of.
	ReplacedDocumentID  string `json:"replaced_document_id,omitempty"`
	ReplacedDisplayName string `json:"replaced_display_name,omitempty"`
}

// phrase names the document: "the document Voided check (check.pdf)", the
// file's name alone in entries written before the title was kept, or "a
// document".
func (d DocumentDetails) phrase() string {
	file := d.DisplayName
	switch {
	case d.DocTitle != "" && file != "":
		return "the document " + d.DocTitle + " (" + file + ")"
	case d.DocTitle != "":
		return "the document " + d.DocTitle
	case file != "":
		return "the document " + file
	}
	return "a document"
}

func wordDocumentReplaced(e *entry) string {
	if e.doc.ReplacedDisplayName != "" {
		return "replaced the document " + e.doc.ReplacedDisplayName + " with " + strings.TrimPrefix(e.doc.phrase(), "the document ")
	}
	return "replaced " + e.doc.phrase()
}
