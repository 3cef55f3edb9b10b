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
	var got []string
	for _, e := range historyEntries(rows) {
		got = append(got, e.Period()+" "+e.Actor+" "+e.Text)
	}
	want := []string{
		"2026-03-01 14:59 UTC Ada Admin restored the application",
		"2026-03-01 14:58 UTC Rita Rep deleted the application",
		"2026-03-01 14:50 UTC Ada Admin reassigned the application from Sam to Rita Rep",
		"2026-03-01 14:45 UTC Ada Admin revealed Owner 1 SSN",
		"2026-03-01 14:20 to 14:30 UTC Rita Rep changed Business: Legal name; Owner 2: First name, added; Merchant contact: Contact e-mail",
		"2026-03-01 14:02 UTC Rita Rep changed Business: TIN",
		"2026-03-01 14:01 UTC Rita Rep created the application",
		"2026-03-01 14:00 UTC  submitted the application",
	}
	if !slices.Equal(got, want) {
		t.Errorf("history:\n%q\nwant\n%q", got, want)
	}
}
