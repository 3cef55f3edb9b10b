package audit

import (
	"slices"
	"testing"
	"time"

	"github.com/payportal/portal/internal/models"
)

func TestHistoryEntriesDescribeAndMergeChanges(t *testing.T) {
	at := func(min int) time.Time { return time.Date(2026, 3, 1, 14, min, 0, 0, time.UTC) }
	ev := func(action, actor string, min int, details string, fields ...string) row {
		return row{Action: action, CreatedAt: at(min), Fields: fields, Details: models.JSON(details), ActorName: actor}
	}
	// Newest first, as the store returns them.
	rows := []row{
		ev(ActionRestored, "Ada Admin", 59, `{}`),
		ev(ActionDeleted, "Rita Rep", 58, `{}`),
		ev(ActionReassigned, "Ada Admin", 50, `{"from_name":"Sam","to_name":"Rita Rep"}`),
		ev(ActionRevealed, "Ada Admin", 45, `{"key":"owners.x.ssn"}`, "owners.0.ssn"),
		ev(ActionChanged, "Rita Rep", 30, `{}`, "contact.email", "business.legal_name"),
		ev(ActionChanged, "Rita Rep", 20, `{}`, "owners.1.added", "owners.1.first_name"),
		ev(ActionChanged, "Rita Rep", 2, `{}`, "business.tin"), // more than 15 minutes before the next
		ev(ActionCreated, "Rita Rep", 1, `{}`),
		ev("submitted", "", 0, `{}`),
	}
	entries := make([]*entry, len(rows))
	for i, r := range rows {
		entries[i] = newEntry(r)
	}
	var got []string
	for _, e := range historyEntries(entries) {
		period := e.At.Format("15:04")
		if !e.Until.IsZero() {
			period += " to " + e.Until.Format("15:04")
		}
		got = append(got, period+" "+e.Actor+" "+e.Text)
	}
	want := []string{
		"14:59 Ada Admin restored the application",
		"14:58 Rita Rep deleted the application",
		"14:50 Ada Admin reassigned the application from Sam to Rita Rep",
		"14:45 Ada Admin revealed Owner 1 SSN",
		"14:20 to 14:30 Rita Rep changed Business: Legal name; Owner 2: First name, added; Merchant contact: Contact e-mail",
		"14:02 Rita Rep changed Business: TIN",
		"14:01 Rita Rep created the application",
		"14:00  submitted the application",
	}
	if !slices.Equal(got, want) {
		t.Errorf("history:\n%q\nwant\n%q", got, want)
	}
}
