package audit

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/drafts"
)

// HistoryEntry is one line of an application's history as people read it.
type HistoryEntry struct {
	// At is when it happened; Until, when not zero, is the last of several consecutive
	// changes by the same person merged into this line.
	At    time.Time
	Until time.Time
	Actor string
	// Action is one of the Action* constants.
	Action string
	// Text says what happened, without the actor: "changed Business: Legal name, TIN".
	Text string
}

// Period says when it happened, as a time or a span of times ("2026-11-21 14:02 to 14:20 UTC").
func (h HistoryEntry) Period() string {
	start := h.At.UTC().Format("2006-01-02 15:04")
	if h.Until.IsZero() {
		return start + " UTC"
	}
	end := h.Until.UTC()
	switch {
	case end.Format("2006-01-02 15:04") == start:
		return start + " UTC"
	case end.Format("2006-01-02") == h.At.UTC().Format("2006-01-02"):
		return start + " to " + end.Format("15:04") + " UTC"
	}
	return start + " to " + end.Format("2006-01-02 15:04") + " UTC"
}

// mergeWindow is how close consecutive changes by one person must be to show as one line.
// Autosave records a change per section save; one line per sitting reads better.
const mergeWindow = 15 * time.Minute

// historyEntries turns audit rows (newest first) into lines, merging runs of changes by the
// same person that follow each other within mergeWindow. The rows themselves are never
// merged: the trail stays append-only.
func historyEntries(rows []row) []HistoryEntry {
	var out []HistoryEntry
	var fields [][]string // per line, the merged changed fields
	for _, r := range rows {
		var d Details
		_ = json.Unmarshal(r.Details, &d) // unknown or empty details just show less
		if n := len(out); n > 0 && r.Action == ActionChanged && out[n-1].Action == ActionChanged &&
			out[n-1].Actor == r.ActorName && out[n-1].At.Sub(r.CreatedAt) <= mergeWindow {
			last := &out[n-1]
			if last.Until.IsZero() {
				last.Until = last.At
			}
			last.At = r.CreatedAt
			fields[n-1] = sortedFieldList(mergeFields(r.Fields, fields[n-1]))
			last.Text = describeChange(fields[n-1])
			continue
		}
		out = append(out, HistoryEntry{At: r.CreatedAt, Actor: r.ActorName, Action: r.Action, Text: describeEvent(r, d)})
		fields = append(fields, slices.Clone([]string(r.Fields)))
	}
	return out
}

// sortedFieldList orders fields as the form shows them.
func sortedFieldList(fields []string) []string {
	set := make(map[string]bool, len(fields))
	for _, f := range fields {
		set[f] = true
	}
	return drafts.SortedFields(set)
}

// mergeFields puts earlier fields first and drops repeats.
func mergeFields(earlier, later []string) []string {
	out := slices.Clone(earlier)
	for _, f := range later {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

func describeEvent(r row, d Details) string {
	switch r.Action {
	case ActionCreated:
		if d.Batch != "" {
			return "created the application from an imported file (row " + strconv.Itoa(d.Row) + ")"
		}
		return "created the application"
	case ActionChanged:
		return describeChange(r.Fields)
	case ActionRevealed:
		return "revealed " + strings.Join(fieldLabels(r.Fields), ", ")
	case ActionReassigned:
		return "reassigned the application from " + orSomeone(d.FromName) + " to " + orSomeone(d.ToName)
	case ActionDeleted:
		return "deleted the application"
	case ActionRestored:
		return "restored the application"
	case ActionSubmitted:
		return "submitted the application"
	case ActionReminderSent:
		return describeReminder(d)
	case ActionRemindersPaused:
		return "paused the reminders"
	case ActionRemindersResumed:
		return "resumed the reminders"
	case ActionImported: // an update; a creation is ActionCreated with the batch
		return describeImport(r.Fields, d)
	case ActionMessageLinkViewed:
		return "viewed the link of a held e-mail"
	}
	return describeRoomEvent(r, d)
}

// describeRoomEvent words the actions of the rooms beyond the workspace: submission and
// hand-off, terminals, payments, API keys and merchants; the action itself otherwise.
func describeRoomEvent(r row, d Details) string {
	describers := []func() (string, bool){
		func() (string, bool) { return describeSubmissionEvent(r.Action, d) },
		func() (string, bool) { return describeTerminalEvent(r) },
		func() (string, bool) { return describePaymentEvent(r.Action, r.Details) },
		func() (string, bool) { return describeAPIKeyEvent(r.Action) },
		func() (string, bool) { return describeMerchantEvent(r.Action, d) },
	}
	for _, describe := range describers {
		if text, ok := describe(); ok {
			return text
		}
		if text, ok := describeWebhookEvent(r.Action, r.Details); ok {
			return text
		}
	}
	return r.Action
}

func orSomeone(name string) string {
	if name == "" {
		return "a former user"
	}
	return name
}

// describeChange lists changed fields by section: "changed Business: Legal name, TIN;
// Owner 1: SSN".
func describeChange(fields []string) string {
	if len(fields) == 0 {
		return "saved without changes"
	}
	type group struct {
		title  string
		labels []string
	}
	var groups []group
	for _, f := range fields {
		title, label := drafts.ChangeLabel(f)
		if n := len(groups); n > 0 && groups[n-1].title == title {
			groups[n-1].labels = append(groups[n-1].labels, label)
			continue
		}
		groups = append(groups, group{title: title, labels: []string{label}})
	}
	parts := make([]string, len(groups))
	for i, g := range groups {
		parts[i] = g.title + ": " + strings.Join(g.labels, ", ")
	}
	return "changed " + strings.Join(parts, "; ")
}

// fieldLabels names fields for a sentence: "Owner 1 SSN", "TIN".
func fieldLabels(fields []string) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		group, label := drafts.ChangeLabel(f)
		if strings.HasPrefix(group, "Owner ") {
			out[i] = group + " " + label
		} else {
			out[i] = label
		}
	}
	return out
}

// describeSubmissionEvent words the audit entries of the submission and of what
// follows it (opens, upstream states) for the history; the portal is the actor.
func describeSubmissionEvent(action string, d Details) (string, bool) {
	switch action {
	case ActionLinked:
		return "created the merchant's link at the processor and e-mailed it to the merchant", true
	case ActionSubmissionFailed:
		return "stopped the submission: " + d.Message, true
	case ActionHandoffResent:
		return "e-mailed the merchant's link again", true
	case ActionOpened:
		return "recorded that the merchant opened the link", true
	case ActionUpstreamStatus:
		return "received the processor's status: " + applications.UpstreamStatusLabel(d.Status), true
	}
	return "", false
}

// describeReminder words a reminder sent; the portal is the actor.
func describeReminder(d Details) string {
	n := ""
	if d.Number > 1 {
		n = " (" + ordinal(d.Number) + ")"
	}
	switch d.Reminder {
	case "not_opened":
		return "reminded the merchant to open their application" + n
	case "not_accepted":
		return "reminded the merchant to finish and accept their application" + n
	case "processing_pending":
		return "told the owner that the processor needs more information" + n
	case "stale_drafts":
		return "listed the draft in the owner's weekly digest" + n
	}
	return "sent a reminder" + n
}

// describeImport words an application updated from an imported file.
func describeImport(fields []string, d Details) string {
	return "updated the application from an imported file (row " + strconv.Itoa(d.Row) + "): " +
		strings.TrimPrefix(describeChange(fields), "changed ")
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}
