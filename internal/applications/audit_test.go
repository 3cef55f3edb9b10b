package applications

import (
	"slices"
	"testing"
	"time"

	"github.com/lib/pq"

	"github.com/payportal/portal/internal/models"
)

func TestHistoryEntriesDescribeAndMergeChanges(t *testing.T) {
	at := func(min int) time.Time { return time.Date(2026, 3, 1, 14, min, 0, 0, time.UTC) }
	row := func(action, actor string, min int, details string, fields ...string) eventRow {
		return eventRow{ApplicationEvent: models.ApplicationEvent{Action: action, CreatedAt: at(min), Fields: pq.StringArray(fields), Details: models.JSON(details)}, ActorName: actor}
	}
	// Newest first, as the store returns them.
	rows := []eventRow{
		row(ActionRestored, "Ada Admin", 59, `{}`),
		row(ActionDeleted, "Rita Rep", 58, `{}`),
		row(ActionReassigned, "Ada Admin", 50, `{"from_name":"Sam","to_name":"Rita Rep"}`),
		row(ActionRevealed, "Ada Admin", 45, `{"key":"owners.x.ssn"}`, "owners.0.ssn"),
		row(ActionChanged, "Rita Rep", 30, `{}`, "contact.email", "business.legal_name"),
		row(ActionChanged, "Rita Rep", 20, `{}`, "owners.1.added", "owners.1.first_name"),
		row(ActionChanged, "Rita Rep", 2, `{}`, "business.tin"), // more than 15 minutes before the next
		row(ActionCreated, "Rita Rep", 1, `{}`),
		row("submitted", "", 0, `{}`),
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

func TestChangedFieldsMatchesOwnersByID(t *testing.T) {
	before := completeDraft(EntityLLC)
	before.Owners = append(before.Owners, Owner{ID: "owner-2", FirstName: "Sam"}, Owner{ID: "owner-3", FirstName: "Kim"})
	after := before.clone()
	after.RemoveOwner("owner-1")
	after.Owners[1].FirstName = "Kimberly" // owner-3, now at position 1
	after.AddOwner("owner-4")
	after.Notes = "changed"
	got := changedFields(before, after)
	want := []string{"owners.1.first_name", "notes", "owners.2.added", "owners.0.removed"}
	if !slices.Equal(got, want) {
		t.Errorf("changed = %q, want %q", got, want)
	}
	if got := changedFields(before, before.clone()); len(got) != 0 {
		t.Errorf("no change reported %q", got)
	}
}
