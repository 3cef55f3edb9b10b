package audit

import (
	"slices"
	"strconv"
	"strings"
	"time"

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

// mergeWindow is how close consecutive changes by one person must be to show as one line.
// Autosave records a change per section save; one line per sitting reads better.
const mergeWindow = 15 * time.Minute

// historyEntries turns audit entries (newest first) into lines, merging runs of changes by
// the same person that follow each other within mergeWindow. The rows themselves are never
// merged: the trail stays append-only.
func historyEntries(entries []*entry) []HistoryEntry {
	var out []HistoryEntry
	var fields [][]string // per line, the merged changed fields
	for _, r := range entries {
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
		out = append(out, HistoryEntry{At: r.CreatedAt, Actor: r.ActorName, Action: r.Action, Text: r.text()})
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
