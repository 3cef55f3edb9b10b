package drafts

import (
	"slices"
	"testing"
)

func TestChangedFieldsMatchesOwnersByID(t *testing.T) {
	before := completeDraft(EntityLLC)
	before.Owners = append(before.Owners, Owner{ID: "owner-2", FirstName: "Sam"}, Owner{ID: "owner-3", FirstName: "Kim"})
	after := before.Clone()
	after.RemoveOwner("owner-1")
	after.Owners[1].FirstName = "Kimberly" // owner-3, now at position 1
	after.AddOwner("owner-4")
	after.Notes = "changed"
	got := ChangedFields(before, after)
	want := []string{"owners.1.first_name", "notes", "owners.2.added", "owners.0.removed"}
	if !slices.Equal(got, want) {
		t.Errorf("changed = %q, want %q", got, want)
	}
	if got := ChangedFields(before, before.Clone()); len(got) != 0 {
		t.Errorf("no change reported %q", got)
	}
}
