package applications

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/payportal/portal/internal/models"
)

// The actions of an application's audit trail (application_events.action).
const (
	ActionCreated    = "created"
	ActionChanged    = "changed"
	ActionRevealed   = "revealed"
	ActionReassigned = "reassigned"
	ActionDeleted    = "deleted"
	ActionRestored   = "restored"
	// ActionSubmitted is recorded by the submission, which lives elsewhere.
	ActionSubmitted = "submitted"
)

// eventDetails is the JSON kept in application_events.details. It never holds a value of
// personal data: a revealed field is named by its key, which holds an owner id at most.
type eventDetails struct {
	Section  string `json:"section,omitempty"`
	Key      string `json:"key,omitempty"`
	FromID   string `json:"from_id,omitempty"`
	FromName string `json:"from_name,omitempty"`
	ToID     string `json:"to_id,omitempty"`
	ToName   string `json:"to_name,omitempty"`
	// Message is why a submission stopped; Status an upstream state (see push_store.go, webhook.go).
	Message string `json:"message,omitempty"`
	Status  string `json:"status,omitempty"`
}

// newEvent builds one audit entry.
func newEvent(appID uuid.UUID, actor *models.User, action string, at time.Time, fields []string, details eventDetails) *models.ApplicationEvent {
	b, _ := json.Marshal(details) // a struct of strings always encodes
	e := &models.ApplicationEvent{
		ApplicationID: appID, Action: action, Fields: pq.StringArray(fields),
		Details: models.JSON(b), CreatedAt: at,
	}
	if actor != nil {
		id := actor.ID
		e.ActorID = &id
	}
	return e
}

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
func historyEntries(rows []eventRow) []HistoryEntry {
	var out []HistoryEntry
	var fields [][]string // per line, the merged changed fields
	for _, r := range rows {
		var d eventDetails
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
	return sortedFields(set)
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

func describeEvent(r eventRow, d eventDetails) string {
	switch r.Action {
	case ActionCreated:
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
	default:
		if text, ok := describeSubmissionEvent(r.Action, d); ok {
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
		title, label := changeLabel(f)
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

// Owners added or removed are recorded as the pseudo-fields "owners.N.added" and
// "owners.N.removed" (N the position before removal, after addition).
const (
	ownerAdded   = "added"
	ownerRemoved = "removed"
)

// changeLabel names a changed field by its group and label: ("Owner 2", "SSN"),
// ("Owner 3", "added"), ("Business", "Legal name").
func changeLabel(field string) (group, label string) {
	if rest, ok := strings.CutPrefix(field, "owners."); ok {
		num, sub, _ := strings.Cut(rest, ".")
		if n, err := strconv.Atoi(num); err == nil {
			group = "Owner " + strconv.Itoa(n+1)
			switch sub {
			case ownerAdded, ownerRemoved:
				return group, sub
			case "is_control_person":
				return group, "control person"
			}
			return group, FieldLabel(field)
		}
	}
	if field == FieldOtherOwnersBelow25 {
		return SectionTitle(SectionOwners), "no other 25% owners"
	}
	return SectionTitle(SectionOf(field)), FieldLabel(field)
}

// fieldLabels names fields for a sentence: "Owner 1 SSN", "TIN".
func fieldLabels(fields []string) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		group, label := changeLabel(f)
		if strings.HasPrefix(group, "Owner ") {
			out[i] = group + " " + label
		} else {
			out[i] = label
		}
	}
	return out
}
